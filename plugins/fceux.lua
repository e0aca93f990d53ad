-- puyobot plug-in for FCEUX 2.6 (Lua 5.1 with LuaSocket): lets `puyobot serve` play the game running in
-- this emulator. Load it with File > Lua > New Lua Script Window, or `fceux --loadlua fceux.lua ROM`.
-- The protocol is described in docs/plugins.md. The script reads RAM and sets the pads the engine drives;
-- it never writes memory. The pads the engine does not drive keep the person's input.
--
-- Environment: PUYOBOT_HOST (default 127.0.0.1), PUYOBOT_PORT (default 7460), PUYOBOT_SPEED
-- (normal, turbo or maximum: FCEUX's speed while connected), PUYOBOT_EXIT_ON_STOP=1 (close FCEUX when
-- the engine stops: what `puyobot play --emulator fceux` sets for runs with a limit).

local VERSION = 1
local HOST = os.getenv("PUYOBOT_HOST") or "127.0.0.1"
local PORT = tonumber(os.getenv("PUYOBOT_PORT") or "7460") or 7460
local EXIT_ON_STOP = (os.getenv("PUYOBOT_EXIT_ON_STOP") or "") == "1"
local SPEED = os.getenv("PUYOBOT_SPEED")
local TIMEOUT = 30 -- seconds without an answer before the engine counts as gone

local ok, socket = pcall(require, "socket")
local status = "starting"
local sock = nil
local drive = {} -- drive[1], drive[2]: whether the engine drives that pad

local function say(text)
  status = text
  io.stderr:write("puyobot: " .. text .. "\n")
  io.stderr:flush()
end

local function show()
  gui.text(4, 8, "puyobot: " .. status)
end

local function u32(n)
  return string.char(n % 256, math.floor(n / 256) % 256, math.floor(n / 65536) % 256,
    math.floor(n / 16777216) % 256)
end

local function le32(s, i)
  local a, b, c, d = string.byte(s, i, i + 3)
  return a + b * 256 + c * 65536 + d * 16777216
end

local function send(kind, payload)
  return sock:send(kind .. u32(#payload) .. payload)
end

-- One message from the engine: kind, payload; or nil and why.
local MAX = { W = 4096, N = 4096, S = 4096, P = 7 }
local function receive()
  local head, err = sock:receive(5)
  if not head then
    return nil, (err == "timeout") and "the engine went silent" or "the engine went away"
  end
  local kind, len = head:sub(1, 1), le32(head, 2)
  if MAX[kind] == nil then
    return nil, string.format("bad message from the engine (kind 0x%02X)", string.byte(kind))
  end
  if len > MAX[kind] then
    return nil, "bad message from the engine (" .. len .. " bytes)"
  end
  local payload = ""
  if len > 0 then
    payload, err = sock:receive(len)
    if not payload then
      return nil, "the engine went away inside a message"
    end
  end
  return kind, payload
end

-- Lets go of the pads (joypad.set is not called again) and shows why.
local function stop(why)
  if sock then
    sock:close()
    sock = nil
  end
  say("stopped: " .. why)
  if SPEED then
    emu.speedmode("normal")
  end
  if EXIT_ON_STOP then
    emu.exit()
  end
end

local function rom_body()
  local prg, chr = rom.readbyte(4) * 16384, rom.readbyte(5) * 8192
  local start = 16
  if math.floor(rom.readbyte(6) / 4) % 2 == 1 then
    start = start + 512 -- a trainer sits between the header and PRG
  end
  local parts = {}
  for i = 0, prg + chr - 1 do
    parts[#parts + 1] = string.char(rom.readbyte(start + i))
  end
  return prg, chr, table.concat(parts)
end

local function connect()
  if not ok then
    say("stopped: LuaSocket is missing (apt-get install lua-socket, or set LUA_CPATH)")
    return false
  end
  say("connecting to " .. HOST .. ":" .. PORT)
  local s, err = socket.connect(HOST, PORT)
  if not s then
    say("stopped: no puyobot at " .. HOST .. ":" .. PORT .. " (" .. tostring(err) .. "); start `puyobot serve`")
    return false
  end
  sock = s
  sock:setoption("tcp-nodelay", true)
  sock:settimeout(TIMEOUT)
  local prg, chr, body = rom_body()
  local hello = "puyobot-remote " .. VERSION .. "\nemulator=FCEUX " .. (emu.getversion and emu.getversion() or "2.6") ..
      "\nprg=" .. prg .. "\nchr=" .. chr .. "\nrom_name=" .. (rom.getfilename() or "") .. "\n"
  send("H", hello)
  send("R", body)
  local kind, payload = receive()
  if kind == "N" then
    stop("refused: " .. payload)
    return false
  elseif kind ~= "W" then
    stop(payload or kind or "no welcome")
    return false
  end
  local pads = payload:match("drive=([%d,]*)") or ""
  for p in pads:gmatch("%d") do
    drive[tonumber(p)] = true
  end
  say("connected: " .. (payload:match("game=([^\n]*)") or "?"))
  return true
end

local BUTTONS = { "A", "B", "select", "start", "up", "down", "left", "right" }
local STATUS = { [0] = "menus", [1] = "calibrating", [2] = "playing", [3] = "game over" }

local function set_pads(p1, p2)
  for port, bits in ipairs({ p1, p2 }) do
    if drive[port] then
      local t = {}
      for i, name in ipairs(BUTTONS) do
        t[name] = (math.floor(bits / 2 ^ (i - 1)) % 2) == 1
      end
      joypad.set(port, t)
    end
  end
end

-- One frame: send the RAM as it stands, take the pads of the next frame.
local function exchange()
  local frame = emu.framecount()
  local ram = memory.readbyterange(0, 2048)
  local sent, err = send("F", u32(frame) .. ram)
  if not sent then
    return stop("the engine went away (" .. tostring(err) .. ")")
  end
  local kind, payload = receive()
  if kind == "P" and #payload == 7 then
    if le32(payload, 1) ~= frame then
      send("Q", "out of step: pads for frame " .. le32(payload, 1) .. " at frame " .. frame)
      return stop("out of step with the engine")
    end
    local p1, p2, st = string.byte(payload, 5, 7)
    set_pads(p1, p2)
    status = STATUS[st] or "playing"
  elseif kind == "S" then
    return stop(payload)
  elseif kind == nil then
    return stop(payload)
  else
    send("Q", "bad message from the engine")
    return stop("bad message from the engine (kind " .. kind .. ")")
  end
end

emu.registerexit(function()
  if sock then
    send("Q", "FCEUX closed or the script was stopped")
    sock:close()
    sock = nil
  end
end)

-- Loaded at power-on (fceux --loadlua), FCEUX's first frame advance only starts the console: the RAM of
-- frame 1 is the power-on state, the built-in emulator's frame 0. Frames are counted from there.
while emu.framecount() < 1 do
  emu.frameadvance()
end
if connect() and SPEED then
  emu.speedmode(SPEED)
end
while true do
  if sock then
    exchange()
  end
  show()
  emu.frameadvance()
end

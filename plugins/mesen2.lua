-- puyobot plug-in for Mesen 2 (Lua 5.4; LuaSocket built in): lets `puyobot serve` play the NES game running
-- in Mesen 2. Open it in Debug > Script Window after enabling, in the script window's settings, "Allow
-- access to I/O and OS functions" and "Allow network access" (Mesen only loads LuaSocket with both).
-- The protocol is described in docs/plugins.md. The script reads RAM (without side effects) and sets the
-- pads the engine drives when the game polls them; it never writes memory. Pads the engine does not drive
-- keep the person's input. Written to Mesen 2's documented Lua API; not run by puyobot's tests.

local VERSION = 1
local HOST = "127.0.0.1"
local PORT = 7460
local TIMEOUT = 30

local ok, socket = pcall(require, "socket.core")
local sock = nil
local status = "starting"
local drive = {}
local pads = { 0, 0 }
local frame = 0

local function say(text)
  status = text
  emu.log("puyobot: " .. text)
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

local MAX = { W = 4096, N = 4096, S = 4096, P = 7 }
local function receive()
  local head, err = sock:receive(5)
  if not head then
    return nil, (err == "timeout") and "the engine went silent" or "the engine went away"
  end
  local kind, len = head:sub(1, 1), le32(head, 2)
  if MAX[kind] == nil or len > MAX[kind] then
    return nil, "bad message from the engine"
  end
  local payload = ""
  if len > 0 then
    payload = sock:receive(len)
    if not payload then
      return nil, "the engine went away inside a message"
    end
  end
  return kind, payload
end

-- Lets go of the pads (the input callback stops setting them) and shows why.
local function stop(why)
  if sock then
    sock:close()
    sock = nil
  end
  drive = {}
  say("stopped: " .. why)
end

local function read_range(memtype, first, count)
  local parts = {}
  for i = 0, count - 1 do
    parts[#parts + 1] = string.char(emu.read(first + i, memtype))
  end
  return table.concat(parts)
end

local function connect()
  if not ok then
    say("stopped: LuaSocket is not available; allow I/O and network access in the script settings")
    return
  end
  local tcp = socket.tcp()
  tcp:settimeout(TIMEOUT)
  local connected, err = tcp:connect(HOST, PORT)
  if not connected then
    say("stopped: no puyobot at " .. HOST .. ":" .. PORT .. " (" .. tostring(err) .. "); start `puyobot serve`")
    return
  end
  sock = tcp
  sock:setoption("tcp-nodelay", true)
  local prg = emu.getMemorySize(emu.memType.nesPrgRom)
  local chr = emu.getMemorySize(emu.memType.nesChrRom)
  local body = read_range(emu.memType.nesPrgRom, 0, prg) .. read_range(emu.memType.nesChrRom, 0, chr)
  local info = emu.getRomInfo()
  send("H", "puyobot-remote " .. VERSION .. "\nemulator=Mesen 2\nprg=" .. prg .. "\nchr=" .. chr ..
    "\nrom_name=" .. ((info and info.name) or "") .. "\n")
  send("R", body)
  local kind, payload = receive()
  if kind ~= "W" then
    stop((kind == "N" and "refused: " or "") .. tostring(payload))
    return
  end
  for p in (payload:match("drive=([%d,]*)") or ""):gmatch("%d") do
    drive[tonumber(p)] = true
  end
  say("connected: " .. (payload:match("game=([^\n]*)") or "?"))
end

local STATUS = { [0] = "menus", [1] = "calibrating", [2] = "playing", [3] = "game over" }

-- The end of a frame (scanline 240, where puyobot's own emulator ends one): send the RAM, take the pads
-- of the next frame.
local function on_end_frame()
  if sock then
    local ram = read_range(emu.memType.nesDebug, 0, 2048)
    local sent, err = send("F", u32(frame) .. ram)
    if not sent then
      stop("the engine went away (" .. tostring(err) .. ")")
    else
      local kind, payload = receive()
      if kind == "P" and #payload == 7 and le32(payload, 1) == frame then
        local p1, p2, st = string.byte(payload, 5, 7)
        pads = { p1, p2 }
        status = STATUS[st] or "playing"
      elseif kind == "S" or kind == nil then
        stop(payload)
      else
        stop("bad message from the engine")
      end
    end
    frame = frame + 1
  end
  emu.drawString(4, 8, "puyobot: " .. status, 0xFFFFFF, 0x000000)
end

local NAMES = { "a", "b", "select", "start", "up", "down", "left", "right" }

-- When the game reads the pads: the engine's buttons on the pads it drives.
local function on_input_polled()
  for port = 1, 2 do
    if drive[port] then
      local t = {}
      for i, name in ipairs(NAMES) do
        t[name] = math.floor(pads[port] / 2 ^ (i - 1)) % 2 == 1
      end
      emu.setInput(t, port - 1)
    end
  end
end

local function on_script_ended()
  if sock then
    send("Q", "the script was stopped in Mesen")
    sock:close()
    sock = nil
  end
end

connect()
emu.addEventCallback(on_end_frame, emu.eventType.endFrame)
emu.addEventCallback(on_input_polled, emu.eventType.inputPolled)
emu.addEventCallback(on_script_ended, emu.eventType.scriptEnded)

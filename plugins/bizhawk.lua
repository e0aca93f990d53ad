-- puyobot plug-in for BizHawk (NesHawk or QuickNes core): lets `puyobot serve` play the NES game running
-- in BizHawk. Open it in Tools > Lua Console. It needs LuaSocket built for BizHawk's Lua, on package.cpath
-- (BizHawk's own comm.socketServer functions carry text, and the protocol's messages are binary).
-- The protocol is described in docs/plugins.md. The script reads RAM and sets the pads the engine drives;
-- it never writes memory. Pads the engine does not drive keep the person's input. Written to BizHawk's
-- documented Lua API (Lua 5.1 syntax, so one syntax check covers every script); not run by puyobot's tests.

local VERSION = 1
local HOST = "127.0.0.1"
local PORT = 7460
local TIMEOUT = 30

local ok, socket = pcall(require, "socket")
local sock = nil
local status = "starting"
local drive = {}

local function say(text)
  status = text
  console.log("puyobot: " .. text)
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

local function stop(why)
  if sock then
    sock:close()
    sock = nil
  end
  say("stopped: " .. why)
end

-- A memory domain's bytes as a string.
local function domain_bytes(domain, first, count)
  local t = memory.read_bytes_as_array(first, count, domain)
  local parts = {}
  for i = 1, count do
    parts[i] = string.char(t[i] or 0)
  end
  return table.concat(parts)
end

local function connect()
  if not ok then
    say("stopped: LuaSocket is not available to BizHawk's Lua (see docs/plugins.md)")
    return false
  end
  local s, err = socket.connect(HOST, PORT)
  if not s then
    say("stopped: no puyobot at " .. HOST .. ":" .. PORT .. " (" .. tostring(err) .. "); start `puyobot serve`")
    return false
  end
  sock = s
  sock:setoption("tcp-nodelay", true)
  sock:settimeout(TIMEOUT)
  local prg = memory.getmemorydomainsize("PRG ROM")
  local chr = 0
  for _, d in ipairs(memory.getmemorydomainlist()) do
    if d == "CHR VROM" then
      chr = memory.getmemorydomainsize("CHR VROM")
    end
  end
  local body = domain_bytes("PRG ROM", 0, prg) .. (chr > 0 and domain_bytes("CHR VROM", 0, chr) or "")
  send("H", "puyobot-remote " .. VERSION .. "\nemulator=BizHawk " .. client.getversion() .. "\nprg=" .. prg ..
    "\nchr=" .. chr .. "\nrom_name=" .. gameinfo.getromname() .. "\n")
  send("R", body)
  local kind, payload = receive()
  if kind ~= "W" then
    stop((kind == "N" and "refused: " or "") .. tostring(payload))
    return false
  end
  for p in (payload:match("drive=([%d,]*)") or ""):gmatch("%d") do
    drive[tonumber(p)] = true
  end
  say("connected: " .. (payload:match("game=([^\n]*)") or "?"))
  return true
end

local NAMES = { "A", "B", "Select", "Start", "Up", "Down", "Left", "Right" }
local STATUS = { [0] = "menus", [1] = "calibrating", [2] = "playing", [3] = "game over" }

local function exchange()
  local frame = emu.framecount()
  local sent, err = send("F", u32(frame) .. domain_bytes("RAM", 0, 2048))
  if not sent then
    return stop("the engine went away (" .. tostring(err) .. ")")
  end
  local kind, payload = receive()
  if kind == "P" and #payload == 7 and le32(payload, 1) == frame then
    local p1, p2, st = string.byte(payload, 5, 7)
    local buttons = {}
    for port, bits in ipairs({ p1, p2 }) do
      if drive[port] then
        for i, name in ipairs(NAMES) do
          buttons["P" .. port .. " " .. name] = math.floor(bits / 2 ^ (i - 1)) % 2 == 1
        end
      end
    end
    joypad.set(buttons)
    status = STATUS[st] or "playing"
  elseif kind == "S" or kind == nil then
    stop(payload)
  else
    stop("bad message from the engine")
  end
end

event.onexit(function()
  if sock then
    send("Q", "the script was stopped in BizHawk")
    sock:close()
    sock = nil
  end
end)

connect()
while true do
  if sock then
    exchange()
  end
  gui.text(4, 8, "puyobot: " .. status)
  emu.frameadvance()
end

/**
 * The cluster's atomic steps, one Lua script each (docs/cluster.md "What Redis holds"). Redis runs a
 * script alone, so each step's checks and writes cannot interleave with another node's. Redis `TIME` is
 * the only clock; a generation is never below Redis' microsecond time, so a Redis that forgot a lane
 * still never hands out a generation that was used before.
 *
 * A pending entry is `sent|callerNode|toolCallIdJson` under its command id in the lane's `pend` hash.
 */

const NOW_MS = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const CANCEL_FRAME = `local function cancelFrame(id, tcid)
  return '{"method":"browser.controller.cancel","params":{"command_id":"' .. id .. '","tool_call_id":' .. tcid .. '}}'
end`;

/** A pending entry's parts: sent ('0'/'1'), caller node, tool call id JSON. */
const PENDING = `local function pending(v)
  return string.match(v, '^(%d)|([^|]*)|(.*)$')
end`;

/** Keeps a cancel for the controller's reconnect, the oldest dropped past cap. */
const DEFER_CANCEL = `local function deferCancel(defer, frame, cap)
  redis.call('RPUSH', defer, frame)
  redis.call('LTRIM', defer, -tonumber(cap), -1)
end`;

/**
 * Where a cancel for a controller goes, and sending it there. `cancelRoute` → nil when the lane is
 * gone, its owner node when the controller is connected to a node whose lease is alive, else false.
 * `routeCancel` → 'local' (this node holds the socket: it writes the frame itself) | 'sent' (appended
 * to the owner's inbox, after the command) | 'deferred' (kept for the controller's reconnect).
 */
const ROUTE_CANCEL = `${DEFER_CANCEL}
local function cancelRoute(lane)
  local f = redis.call('HMGET', lane, 'state', 'owner')
  if not f[1] then return nil end
  if f[1] == 'connected' and f[2] and f[2] ~= '' and redis.call('EXISTS', 'tg:node:' .. f[2]) == 1 then
    return f[2]
  end
  return false
end
local function routeCancel(owner, defer, h, frame, node, maxlen, cap)
  if owner == node then return 'local' end
  if owner then
    redis.call('XADD', 'tg:inbox:' .. owner, 'MAXLEN', '~', maxlen, '*', 'k', 'cancel', 'h', h, 'f', frame)
    return 'sent'
  end
  deferCancel(defer, frame, cap)
  return 'deferred'
end`;

/**
 * Ending a command for its caller. `tellCaller` appends `cancelled` to the caller node's inbox (`why`
 * 'stop' marks the owner's Stop). `endForCaller` does so for a caller on another node, or adds the
 * command to `here` when it waits on this node, which settles it itself → true when another node was told.
 */
const END_FOR_CALLER = `local function tellCaller(caller, id, maxlen, why)
  local entry = {'XADD', 'tg:inbox:' .. caller, 'MAXLEN', '~', maxlen, '*', 'k', 'cancelled', 'id', id}
  if why then
    table.insert(entry, 'r')
    table.insert(entry, why)
  end
  redis.call(unpack(entry))
end
local function endForCaller(caller, id, node, here, maxlen, why)
  if caller == node then
    table.insert(here, id)
    return false
  end
  tellCaller(caller, id, maxlen, why)
  return true
end`;

/**
 * The nodes keeping a copy of a lookup key's lanes (see lane-copies.ts) are told it changed, and the
 * watch set goes: a copy is good only while its node is in the set, which DISPATCH checks. Nodes whose
 * lease is gone are not told. `token` ('' for none) asks each to answer `fenced` to `node` once its
 * copy is dropped. → the nodes told
 */
const TELL_WATCHERS = `local function tellWatchers(watch, S, node, maxlen, token)
  local told = {}
  for _, w in ipairs(redis.call('SMEMBERS', watch)) do
    if w ~= node and redis.call('EXISTS', 'tg:node:' .. w) == 1 then
      redis.call('XADD', 'tg:inbox:' .. w, 'MAXLEN', '~', maxlen, '*', 'k', 'inval', 'S', S, 't', token, 'c', node)
      table.insert(told, w)
    end
  end
  redis.call('DEL', watch)
  return told
end`;

/** KEYS: ticket. ARGV: scope JSON, ttl ms, paired by the owner ('1'/'0'). → {'ok', now, exp} | {'exists'} */
export const MINT = `${NOW_MS}
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists'} end
local exp = now + tonumber(ARGV[2])
redis.call('HSET', KEYS[1], 'scope', ARGV[1], 'exp', string.format('%.0f', exp))
if ARGV[3] == '1' then redis.call('HSET', KEYS[1], 'pa', '1') end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]) + 60000)
return {'ok', string.format('%.0f', now), string.format('%.0f', exp)}`;

/**
 * KEYS: ticket. → {'ok', scope, paired} | {'unknown'} | {'consumed'} | {'expired'}; at exactly exp it
 * still succeeds. The spent ticket becomes a bare string for the rest of its life: it only has to
 * tell a replay "consumed" from "unknown", and a small string costs a fraction of a hash (one whose
 * scope once exceeded the listpack limit stays a hash table even emptied).
 */
export const CONSUME = `if redis.call('TYPE', KEYS[1]).ok == 'string' then return {'consumed'} end
local v = redis.call('HMGET', KEYS[1], 'scope', 'exp', 'pa')
if not v[1] then return {'unknown'} end
${NOW_MS}
if now > tonumber(v[2]) then return {'expired'} end
local ttl = redis.call('PTTL', KEYS[1])
redis.call('DEL', KEYS[1])
if ttl > 0 then redis.call('SET', KEYS[1], '1', 'PX', ttl) end
return {'ok', v[1], v[3] or '0'}`;

/**
 * KEYS: idx, lane, sess, this node's lease, watch. ARGV: h, scope JSON without its capabilities (kept
 * once, as caps), laneKey, caps ",a,b,", node, prefix, S, maxlen, paired, fence token. Replaces other
 * identities of the same lane (their callers told `cancelled`, their owners `revoke`), then takes the
 * lane for this node with a new generation; the nodes keeping a copy of the lookup key are told.
 * → {gen, deferred cancel frames, nodes told} | {'nolease'}: no node would route to a lane whose owner
 * has no lease (a Redis that restarted before this node renewed).
 */
export const ATTACH = `${PENDING}
${END_FOR_CALLER}
${TELL_WATCHERS}
if redis.call('EXISTS', KEYS[4]) ~= 1 then return {'nolease'} end
local pre = ARGV[6]
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if m ~= ARGV[1] then
    local lk = pre .. 'lane:' .. m
    local f = redis.call('HMGET', lk, 'lk', 'owner', 'gen')
    if f[1] == ARGV[3] then
      local pk = pre .. 'pend:' .. m
      local p = redis.call('HGETALL', pk)
      for i = 1, #p, 2 do
        local _, caller = pending(p[i + 1])
        tellCaller(caller, p[i], ARGV[8])
      end
      if f[2] and f[2] ~= '' then
        redis.call('XADD', 'tg:inbox:' .. f[2], 'MAXLEN', '~', ARGV[8], '*', 'k', 'revoke', 'h', m, 'gen', f[3])
      end
      redis.call('DEL', lk, pk, pre .. 'defer:' .. m)
      redis.call('SREM', KEYS[1], m)
      redis.call('SREM', KEYS[3], ARGV[7] .. ':' .. m)
    end
  end
end
local t = redis.call('TIME')
local nowus = tonumber(t[1]) * 1000000 + tonumber(t[2])
local old = tonumber(redis.call('HGET', KEYS[2], 'gen') or '0')
local gen = string.format('%.0f', math.max(old + 1, nowus))
local deferred = redis.call('LRANGE', pre .. 'defer:' .. ARGV[1], 0, -1)
local state = 'connected'
if #deferred > 0 then state = 'flushing' end
redis.call('HSET', KEYS[2], 'scope', ARGV[2], 'lk', ARGV[3], 'caps', ARGV[4], 'owner', ARGV[5], 'gen', gen, 'state', state)
if ARGV[9] == '1' then redis.call('HSET', KEYS[2], 'pa', '1') else redis.call('HDEL', KEYS[2], 'pa') end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[7] .. ':' .. ARGV[1])
return {gen, deferred, tellWatchers(KEYS[5], ARGV[7], ARGV[5], ARGV[8], ARGV[10])}`;

/**
 * KEYS: lane, defer. ARGV: gen, how many deferred cancels were written. Routable again only when nothing
 * is left; else the cancels queued meanwhile come back for another round. → {status, remaining frames}
 */
export const COMMIT = `if redis.call('HGET', KEYS[1], 'gen') ~= ARGV[1] then return {'moved', {}} end
redis.call('LTRIM', KEYS[2], tonumber(ARGV[2]), -1)
local left = redis.call('LRANGE', KEYS[2], 0, -1)
if #left == 0 then
  redis.call('HSET', KEYS[1], 'state', 'connected')
  return {'ok', {}}
end
return {'more', left}`;

/**
 * KEYS: idx. ARGV: prefix. → flat list of scope JSON (without its capabilities), '1' when routable now
 * (connected, owner alive), '1' when the owner paired it (registered with a pairing token), the
 * capabilities as ",a,b,". Declared read-only (the shebang must
 * be the first line): Redis runs it while writes are paused (`CLIENT PAUSE WRITE`, a failover), so a
 * call reaches its dispatch, whose deadline then bounds it, instead of waiting out the pause unbounded.
 */
export const LOOKUP = `#!lua flags=no-writes
local out = {}
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local f = redis.call('HMGET', ARGV[1] .. 'lane:' .. m, 'scope', 'state', 'owner', 'pa', 'caps')
  if f[1] then
    local live = '0'
    if f[2] == 'connected' and f[3] and f[3] ~= '' and redis.call('EXISTS', 'tg:node:' .. f[3]) == 1 then
      live = '1'
    end
    table.insert(out, f[1])
    table.insert(out, live)
    table.insert(out, f[4] or '0')
    table.insert(out, f[5] or ',,')
  end
end
return out`;

/**
 * KEYS: idx, watch. ARGV: prefix, node. LOOKUP's answer, with this node made a watcher in the same
 * step: whoever changes the lookup key's lanes from now on tells it, so it may keep this answer as a
 * copy and route from it without reading Redis first.
 */
export const WATCH = `redis.call('SADD', KEYS[2], ARGV[2])
${LOOKUP.replace('#!lua flags=no-writes\n', '')}`;

/**
 * KEYS: idx, lane, pend, the session's stop marker, watch. ARGV: h, action, command id, caller node,
 * tool call id JSON, frame, maxlen, S, the vault secret's name, origin and field as JSON ('' for none;
 * never its value), '1' when the caller routed from its copy of the lane. Checks and registers in one
 * step: the copy is still good (the caller still watches), the owner has not stopped the session,
 * exactly one controller in the lookup key, connected, its owner's lease alive, capable, paired by its
 * owner when a vault secret goes with the command. Nothing the copy says is trusted beyond the
 * identity the call chose: owner and generation are read here. → {'local', gen} (already marked sent:
 * the caller holds the socket) | {'remote', gen, owner} |
 * {'stale'|'stopped'|'none'|'offline'|'owner_gone'|'incapable'|'unpaired'} | {'nolease'}: the caller
 * has no lease (a Redis that restarted since its last renewal), and the owner would drop the command as
 * one of a dead caller; it renews and dispatches again.
 */
export const DISPATCH = `if redis.call('EXISTS', 'tg:node:' .. ARGV[4]) ~= 1 then return {'nolease'} end
if ARGV[10] == '1' and redis.call('SISMEMBER', KEYS[5], ARGV[4]) ~= 1 then return {'stale'} end
if redis.call('EXISTS', KEYS[4]) == 1 then return {'stopped'} end
if redis.call('SCARD', KEYS[1]) ~= 1 or redis.call('SISMEMBER', KEYS[1], ARGV[1]) ~= 1 then return {'none'} end
local f = redis.call('HMGET', KEYS[2], 'state', 'owner', 'gen', 'caps', 'pa')
if f[1] ~= 'connected' then return {'offline'} end
if redis.call('EXISTS', 'tg:node:' .. f[2]) ~= 1 then return {'owner_gone'} end
if not string.find(f[4], ',' .. ARGV[2] .. ',', 1, true) then return {'incapable'} end
if ARGV[9] ~= '' and f[5] ~= '1' then return {'unpaired'} end
if f[2] == ARGV[4] then
  redis.call('HSET', KEYS[3], ARGV[3], '1|' .. ARGV[4] .. '|' .. ARGV[5])
  return {'local', f[3]}
end
redis.call('HSET', KEYS[3], ARGV[3], '0|' .. ARGV[4] .. '|' .. ARGV[5])
redis.call('XADD', 'tg:inbox:' .. f[2], 'MAXLEN', '~', ARGV[7], '*', 'k', 'command', 'h', ARGV[1], 'S', ARGV[8], 'gen', f[3], 'id', ARGV[3], 's', ARGV[9], 'f', ARGV[6], 'c', ARGV[4])
return {'remote', f[3], f[2]}`;

/**
 * KEYS: lane, pend. ARGV: command id, gen, node. The owner's fence before writing a command to the
 * socket: still pending, never sent, its caller's lease alive (nobody else waits for it: dropped), and
 * the lane still this node's at this generation. → 1 | 0
 */
export const MARK_SENT = `local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v or string.sub(v, 1, 1) ~= '0' then return 0 end
if redis.call('EXISTS', 'tg:node:' .. string.match(v, '^%d|([^|]*)|')) ~= 1 then
  redis.call('HDEL', KEYS[2], ARGV[1])
  return 0
end
local f = redis.call('HMGET', KEYS[1], 'gen', 'owner', 'state')
if f[1] ~= ARGV[2] or f[2] ~= ARGV[3] or f[3] ~= 'connected' then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], '1' .. string.sub(v, 2))
return 1`;

/**
 * KEYS: pend. ARGV: command id, node, only if unsent ('1'), kind, ok, payload JSON, maxlen. Ends a
 * pending command once and tells its caller. → 'local' (the caller is this node) | 'sent' | false
 */
export const FINISH = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v then return false end
if ARGV[3] == '1' and string.sub(v, 1, 1) ~= '0' then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
local caller = string.match(v, '^%d|([^|]*)|')
if caller == ARGV[2] then return 'local' end
redis.call('XADD', 'tg:inbox:' .. caller, 'MAXLEN', '~', ARGV[7], '*', 'k', ARGV[4], 'id', ARGV[1], 'ok', ARGV[5], 'p', ARGV[6])
return 'sent'`;

/** KEYS: pend. ARGV: command id, owner node. The caller gives up a command its dead owner never sent. → 1 | 0 */
export const ABANDON = `local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or string.sub(v, 1, 1) ~= '0' then return 0 end
if redis.call('EXISTS', 'tg:node:' .. ARGV[2]) == 1 then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
return 1`;

/**
 * KEYS: lane, pend, defer. ARGV: command id, cancel frame, maxlen, node, h, cap. Timeout or abort at the
 * caller: an unsent command is just dropped (it can never be sent now); a sent one gets its cancel,
 * appended after it in the owner's inbox, or deferred while the controller is away.
 * → 'gone' | 'unsent' | 'nolane' | 'local' | 'sent' | 'deferred'
 */
export const END_EARLY = `${ROUTE_CANCEL}
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v then return 'gone' end
redis.call('HDEL', KEYS[2], ARGV[1])
if string.sub(v, 1, 1) == '0' then return 'unsent' end
local owner = cancelRoute(KEYS[1])
if owner == nil then return 'nolane' end
return routeCancel(owner, KEYS[3], ARGV[5], ARGV[2], ARGV[4], ARGV[3], ARGV[6])`;

/**
 * KEYS: lane, pend, defer. ARGV: command id, node, maxlen, h, cap. The socket's node drops a command whose
 * caller node is gone (its lease expired): nobody waits for it. A sent one gets its cancel, as in
 * END_EARLY. → {'gone'} | {'alive'} | {'unsent'} | {'nolane'} | {'local', frame} | {'sent'} | {'deferred'}
 */
export const REAP = `${CANCEL_FRAME}
${PENDING}
${ROUTE_CANCEL}
local v = redis.call('HGET', KEYS[2], ARGV[1])
if not v then return {'gone'} end
local sent, caller, tcid = pending(v)
if redis.call('EXISTS', 'tg:node:' .. caller) == 1 then return {'alive'} end
redis.call('HDEL', KEYS[2], ARGV[1])
if sent ~= '1' then return {'unsent'} end
local frame = cancelFrame(ARGV[1], tcid)
local owner = cancelRoute(KEYS[1])
if owner == nil then return {'nolane'} end
local where = routeCancel(owner, KEYS[3], ARGV[4], frame, ARGV[2], ARGV[3], ARGV[5])
if where == 'local' then return {where, frame} end
return {where}`;

/** KEYS: defer. ARGV: cancel frame, cap. A local cancel write failed: it waits for the reconnect. */
export const DEFER = `${DEFER_CANCEL}
deferCancel(KEYS[1], ARGV[1], ARGV[2])
return 1`;

/**
 * KEYS: lane, watch. ARGV: node, gen, S, maxlen. Only the socket holding the current generation takes
 * the lane offline; the nodes keeping a copy are told.
 */
export const DISCONNECT = `${TELL_WATCHERS}
local f = redis.call('HMGET', KEYS[1], 'owner', 'gen')
if f[1] ~= ARGV[1] or f[2] ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'offline', 'owner', '')
tellWatchers(KEYS[2], ARGV[3], ARGV[1], ARGV[4], '')
return 1`;

/**
 * KEYS: idx, lane, pend, defer, sess, watch. ARGV: h, node, notify ('1'), maxlen, S, expected owner ('' any),
 * expected gen, close code for the owner's socket ('' to leave it open). Removes a controller: a connected one is told to cancel its sent commands (written here
 * when this node holds the socket, else appended to its owner's inbox), every caller gets `cancelled`,
 * every node keeping a copy of the lookup key is told.
 * → false | {scope, owner, cancel frames for this node, command ids cancelled for this node, controllers
 * left in the session}
 */
export const DETACH = `${CANCEL_FRAME}
${PENDING}
${ROUTE_CANCEL}
${END_FOR_CALLER}
${TELL_WATCHERS}
local f = redis.call('HMGET', KEYS[2], 'owner', 'gen', 'state', 'scope')
if not f[4] then return false end
if ARGV[6] ~= '' and (f[1] ~= ARGV[6] or f[2] ~= ARGV[7]) then return false end
local frames, cancelled = {}, {}
local p = redis.call('HGETALL', KEYS[3])
for i = 1, #p, 2 do
  local sent, caller, tcid = pending(p[i + 1])
  -- A connected lane has its owner: the cancel is never deferred (the lane is removed below anyway).
  if ARGV[3] == '1' and f[3] == 'connected' and sent == '1' then
    local frame = cancelFrame(p[i], tcid)
    if routeCancel(f[1], KEYS[4], ARGV[1], frame, ARGV[2], ARGV[4], '1') == 'local' then
      table.insert(frames, frame)
    end
  end
  endForCaller(caller, p[i], ARGV[2], cancelled, ARGV[4])
end
if f[1] ~= '' and f[1] ~= ARGV[2] then
  redis.call('XADD', 'tg:inbox:' .. f[1], 'MAXLEN', '~', ARGV[4], '*', 'k', 'revoke', 'h', ARGV[1], 'gen', f[2], 'c', ARGV[8])
end
redis.call('DEL', KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[1], ARGV[1])
redis.call('SREM', KEYS[5], ARGV[5] .. ':' .. ARGV[1])
tellWatchers(KEYS[6], ARGV[5], ARGV[2], ARGV[4], '')
return {f[4], f[1], frames, cancelled, redis.call('SCARD', KEYS[5])}`;

/**
 * KEYS: sess, stop marker. ARGV: node, maxlen, cap, marker ttl ms, fence token. The owner's Stop: the
 * marker is set first, in the same step, so no dispatch after this one registers a command of the
 * session (a call that read its session before the Stop was stored is refused at its dispatch); then
 * every pending command of the session's controllers ends for its caller, wherever it waits
 * (`cancelled` marked `r: stop`), and each sent one gets its cancel (appended to its owner's inbox,
 * returned when this node holds the socket, deferred while the controller is away). Every other node
 * holding one of the session's sockets gets a fence after them (see stop-fences.ts): a cancel sent
 * before this step (the caller's own abort) is also behind it. → {flat pairs h, frame for this node,
 * command ids cancelled for this node, how many callers on other nodes were told, the fenced nodes}
 */
export const CANCEL_SESSION = `${CANCEL_FRAME}
${PENDING}
${ROUTE_CANCEL}
${END_FOR_CALLER}
redis.call('SET', KEYS[2], '1', 'PX', ARGV[4])
local frames, cancelled, remote, fenced, fence = {}, {}, 0, {}, {}
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local S, h = string.match(m, '^([^:]*):(.*)$')
  local pre = 'tg:{' .. S .. '}:'
  local owner = cancelRoute(pre .. 'lane:' .. h)
  if owner and owner ~= ARGV[1] and not fence[owner] then
    fence[owner] = true
    table.insert(fenced, owner)
  end
  local pk = pre .. 'pend:' .. h
  local p = redis.call('HGETALL', pk)
  for i = 1, #p, 2 do
    local sent, caller, tcid = pending(p[i + 1])
    if sent == '1' and owner ~= nil then
      local frame = cancelFrame(p[i], tcid)
      if routeCancel(owner, pre .. 'defer:' .. h, h, frame, ARGV[1], ARGV[2], ARGV[3]) == 'local' then
        table.insert(frames, h)
        table.insert(frames, frame)
      end
    end
    if endForCaller(caller, p[i], ARGV[1], cancelled, ARGV[2], 'stop') then remote = remote + 1 end
  end
  redis.call('DEL', pk)
end
for _, owner in ipairs(fenced) do
  redis.call('XADD', 'tg:inbox:' .. owner, 'MAXLEN', '~', ARGV[2], '*', 'k', 'fence', 't', ARGV[5], 'c', ARGV[1])
end
return {frames, cancelled, remote, fenced}`;

/**
 * KEYS: sess. ARGV: node, maxlen, session id, tool, approval id, expiry (epoch ms). The controller asked
 * the person to approve a command of the session: every other node with a caller waiting on one of the
 * session's commands is told (`await`), so it moves that command's deadline. → how many nodes were told
 */
export const AWAIT_APPROVAL = `${PENDING}
local told = {}
local n = 0
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local S, h = string.match(m, '^([^:]*):(.*)$')
  local p = redis.call('HGETALL', 'tg:{' .. S .. '}:pend:' .. h)
  for i = 2, #p, 2 do
    local _, caller = pending(p[i])
    if caller ~= ARGV[1] and not told[caller] then
      told[caller] = true
      n = n + 1
      redis.call('XADD', 'tg:inbox:' .. caller, 'MAXLEN', '~', ARGV[2], '*', 'k', 'await', 's', ARGV[3], 't', ARGV[4], 'a', ARGV[5], 'x', ARGV[6])
    end
  end
end
return n`;

/**
 * KEYS: lease, inbox, epoch. ARGV: lease value, lease ttl, inbox ttl, a fresh epoch. Renews the lease,
 * appends a probe to the node's own inbox (its reader must read it back, else it is deaf) while dropping
 * entries older than the inbox ttl, and returns the cluster's epoch, writing it when absent (the first
 * node, or a Redis that forgot it).
 */
export const RENEW = `redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local t = redis.call('TIME')
local minid = tonumber(t[1]) * 1000 - tonumber(ARGV[3])
redis.call('XADD', KEYS[2], 'MINID', '~', string.format('%.0f', minid), '*', 'k', 'probe')
redis.call('PEXPIRE', KEYS[2], ARGV[3])
local e = redis.call('GET', KEYS[3])
if not e then
  redis.call('SET', KEYS[3], ARGV[4])
  e = ARGV[4]
end
return e`;

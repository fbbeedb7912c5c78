"""The Lua scripts of the Redis store (:mod:`server.store.redis`), each with what it
takes and answers. Every one touches the keys of one room (one cluster slot), but
the ones that run on a single Redis only: :data:`PAGE`, :data:`APPEND_IDS` and
:data:`RENEW_IDS`, which build the keys they touch."""

APPENDER = """
local out = {}
local function append(i, lease, log, tokens, item)
  if redis.call('GET', lease) ~= item[1] then
    out[i] = 'NOTOWNER lease lost'
    return
  end
  local added = redis.pcall('XADD', log, item[2], 'e', item[3])
  if type(added) == 'table' and added.err then
    out[i] = added.err
    return
  end
  if tokens then
    redis.call('HSET', tokens, item[4], item[5])
    redis.call('EXPIRE', tokens, ARGV[2])
  end
  if ARGV[3] == '1' then
    local feed = string.sub(log, 1, -4) .. 'feed'
    redis.call('SPUBLISH', feed, item[2] .. ' ' .. item[3])
  end
  out[i] = 1
end
"""
"""The start of both append scripts: ``append`` the i-th entry (``item``: [lease token,
stream id, entry, seat token hash or "", seat]) to the room whose lease, log and tokens
keys are given (no tokens key: the entry stores no seat token), and note 1 (written,
with its seat token if any: both or neither) or the reason it was not."""

APPEND = (
    APPENDER
    + """
local k = 1
for i, item in ipairs(cmsgpack.unpack(ARGV[1])) do
  local tokens = nil
  if item[4] ~= '' then tokens = KEYS[k + 2] end
  append(i, KEYS[k], KEYS[k + 1], tokens, item)
  k = k + (tokens and 3 or 2)
end
return out
"""
)
"""Entries of several rooms: KEYS lease1, log1, [tokens1], lease2, log2, [tokens2] … (a
room's tokens key only where its entry stores a seat token: on a cluster a key named
that exists on neither master, as a tokens key often does, makes the call wait for
the end of a slot move, TRYAGAIN); ARGV[1] one msgpack array of the items (one
argument, whatever the batch: the client packs one value, not five per entry), ARGV[2]
the seat tokens' TTL, ARGV[3] "1" to publish each entry on its room's feed (a
cluster); per entry 1 or the reason it was not written."""

APPEND_IDS = (
    APPENDER
    + """
for i, item in ipairs(cmsgpack.unpack(ARGV[1])) do
  local room = ARGV[4] .. '{' .. item[6] .. '}:'
  local tokens = nil
  if item[4] ~= '' then tokens = room .. 'tokens' end
  append(i, room .. 'lease', room .. 'log', tokens, item)
end
return out
"""
)
""":data:`APPEND` on a single Redis: each item ends with its room id, ARGV[4] is the
rooms' key prefix (as :data:`PAGE`), and no key is sent: the client builds and sends
none per entry (as :data:`RENEW_IDS`)."""

ACQUIRE = """
if redis.call('EXISTS', KEYS[3]) == 0 then return false end
if redis.call('EXISTS', KEYS[1]) == 1 then return false end
local token = ARGV[1] .. ':' .. redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], token, 'PX', ARGV[2])
return token
"""

RENEWER = """
redis.set_repl(redis.REPL_REPLICA)
local lost = {}
local function renew(i, key, token)
  if redis.call('GET', key) == token then
    redis.call('PEXPIRE', key, ARGV[1])
  else
    lost[#lost + 1] = i
  end
end
"""
"""The start of both renewal scripts: ``renew`` the i-th lease, or note it lost."""
RENEW = (
    RENEWER
    + """
local tokens = cmsgpack.unpack(ARGV[2])
for i, key in ipairs(KEYS) do renew(i, key, tokens[i]) end
return lost
"""
)
"""The leases of several rooms (of one slot, on a cluster): KEYS their lease keys, ARGV
the TTL and one msgpack array of the tokens; the positions (from 1) of the leases not
held (not renewed). One packed argument and a reply of the lost ones only: a pass
over thousands of rooms costs the client little to build and less to read.

A renewal goes to the replicas (a failover keeps the leases), not to the append-only
file (with ``appendfsync always`` each call would cost an fsync that moves wait for):
restarted from its file, Redis finds the leases with the TTL they were taken with
(lapsed); the owners' next renewal or append is answered lost, and each process
takes its rooms again (the fencing keeps every acknowledged move)."""

RENEW_IDS = (
    RENEWER
    + """
for i, lease in ipairs(cmsgpack.unpack(ARGV[2])) do
  renew(i, ARGV[3] .. '{' .. lease[1] .. '}:lease', lease[2])
end
return lost
"""
)
""":data:`RENEW` on a single Redis, ARGV the TTL, [room id, token] pairs (packed in C)
and the rooms' key prefix (as :data:`PAGE`): no key built or sent per room."""

PAGE = """
local members = redis.call('ZREVRANGEBYLEX', KEYS[1], ARGV[1], '-', 'LIMIT', 0, ARGV[2])
local out = {}
for i, member in ipairs(members) do
  out[2 * i - 1] = member
  local id = string.sub(member, string.find(member, ':') + 1)
  out[2 * i] = redis.call('GET', ARGV[3] .. '{' .. id .. '}')
end
return out
"""
"""A page of an index with its records, in one round trip (a single Redis: the records
are in other slots): KEYS the index, ARGV the top of the range, how many, and the
room key prefix; index key, record (false: the room is gone), index key, record …"""

RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

REMEMBER = """
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return 1
"""
"""A quick play's room under its key's digest (KEYS the key; ARGV the room id and the
TTL): a script, so that it is sent as appends are, then ``WAIT`` (durability)."""

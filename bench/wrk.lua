-- wrk script: rotates API keys per request (script arguments are the keys, so no single key's per-minute
-- window fills up during a long run) and prints one JSON line at the end: throughput, latency (µs), failures.
-- Arguments starting with "/" are paths, rotated too (a mix of endpoints); without any, the URL's path.
local requests = {}
local nextIndex = 0

init = function(args)
  local keys, paths = {}, {}
  for _, arg in ipairs(args) do
    if arg:sub(1, 1) == "/" then paths[#paths + 1] = arg else keys[#keys + 1] = arg end
  end
  -- Every key with every path, so each path gets the same share whatever the counts.
  for k = 1, math.max(#keys, 1) do
    local headers = keys[k] and { ["X-API-Key"] = keys[k] } or nil
    for p = 1, math.max(#paths, 1) do
      requests[#requests + 1] = wrk.format(nil, paths[p], headers)
    end
  end
end

request = function()
  nextIndex = nextIndex % #requests + 1
  return requests[nextIndex]
end

done = function(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,"non2xx3xx":%d,"socketErrors":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect + e.read + e.write + e.timeout))
end

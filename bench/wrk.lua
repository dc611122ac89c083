-- wrk script: rotates API keys per request (script arguments are the keys, so no single key's per-minute
-- window fills up during a long run) and prints one JSON line at the end: throughput, latency (µs), failures.
local requests = {}
local nextIndex = 0

init = function(args)
  for _, key in ipairs(args) do
    requests[#requests + 1] = wrk.format(nil, nil, { ["X-API-Key"] = key })
  end
  if #requests == 0 then requests[1] = wrk.format() end
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

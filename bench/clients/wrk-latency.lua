-- wrk's done() hook: prints every latency wrk recorded, as "latency-us VALUE COUNT" lines (its
-- histogram, 1 µs buckets), so that the slices of one row can be merged into the percentiles of all
-- their requests (bench/api.ts). latency(i) is the i-th distinct value seen and its count; 0 past the last.
done = function(summary, latency, requests)
  local i = 1
  while true do
    local value, count = latency(i)
    if value == 0 then break end
    io.write(string.format("latency-us %d %d\n", value, count))
    i = i + 1
  end
end

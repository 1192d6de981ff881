-- Spark applications: the application state, in words.
local hs = {}
local state = obj.status and obj.status.applicationState and obj.status.applicationState.state
if state == nil then
  return { status = "Progressing", message = "Waiting for the Spark operator" }
end
local words = {}
for word in string.gmatch(state, "[^_]+") do
  table.insert(words, string.upper(string.sub(word, 1, 1)) .. string.lower(string.sub(word, 2)))
end
local pretty = table.concat(words, " ")
if state == "RUNNING" or state == "COMPLETED" then
  hs.status = "Healthy"
elseif state == "FAILED" or state == "SUBMISSION_FAILED" or state == "FAILING" then
  hs.status = "Degraded"
  hs.message = obj.status.applicationState.errorMessage or ("SparkApplication is " .. pretty)
  return hs
else
  hs.status = "Progressing"
end
hs.message = "SparkApplication is " .. pretty
return hs

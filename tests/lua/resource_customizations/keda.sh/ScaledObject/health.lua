-- KEDA ScaledObjects: a paused object is suspended, a failed check or an active fallback degraded, and one that
-- is not ready yet progressing.
local hs = { status = "Healthy", message = "" }
if obj.status == nil or obj.status.conditions == nil then
  return { status = "Progressing", message = "Waiting for the KEDA operator" }
end
local byType = {}
for _, condition in ipairs(obj.status.conditions) do
  byType[condition.type] = condition
end
local paused, ready, fallback = byType.Paused, byType.Ready, byType.Fallback
if paused ~= nil and paused.status == "True" then
  return { status = "Suspended", message = paused.message }
end
if ready ~= nil and ready.status == "False" then
  return { status = "Degraded", message = ready.message }
end
if fallback ~= nil and fallback.status == "True" then
  return { status = "Degraded", message = fallback.message }
end
if ready == nil then
  local running = byType.Running
  return { status = "Progressing", message = running and running.message or "Waiting for the Ready condition" }
end
hs.message = ready.message or ""
return hs

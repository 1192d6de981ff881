-- Every kind of every *.crossplane.io group: a False health-like condition is the failure, otherwise the resource is
-- up to date.
local failing = { Healthy = true, Ready = true, Synced = true, RevisionHealthy = true }
local hs = { status = "Healthy", message = "Resource is up-to-date." }
if obj.status == nil or obj.status.conditions == nil then
  return { status = "Progressing", message = "Waiting for the provider to report conditions" }
end
for _, condition in ipairs(obj.status.conditions) do
  if not failing[condition.type] then
    goto continue
  end
  if condition.status == "False" then
    hs.status = "Degraded"
    hs.message = condition.message or condition.reason or ""
    break
  end
  ::continue::
end
return hs

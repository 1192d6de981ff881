-- Cluster API Clusters: a Ready condition with severity Error, or a Failed phase, is degraded; Provisioned is
-- healthy; anything else is still being provisioned.
local function readyCondition(conditions)
  for _, condition in ipairs(conditions or {}) do
    if condition.type == "Ready" then
      return condition
    end
  end
  return nil
end
local status = obj.status or {}
local ready = readyCondition(status.conditions)
if ready ~= nil and ready.status == "False" and (ready.severity == "Error" or status.phase == "Failed") then
  return { status = "Degraded", message = ready.message or ready.reason or "" }
end
if status.phase == "Failed" then
  return { status = "Degraded", message = status.failureMessage or "" }
end
if status.phase == "Provisioned" then
  return { status = "Healthy", message = "Cluster is running" }
end
return { status = "Progressing", message = "Waiting for clusters" }

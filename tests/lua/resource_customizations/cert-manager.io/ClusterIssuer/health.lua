-- ClusterIssuers: as Issuers, with their own initial message.
local hs = { status = "Progressing", message = "Initializing ClusterIssuer" }
local conditions = obj.status and obj.status.conditions or {}
for i = 1, table.getn(conditions) do
  local condition = conditions[i]
  if condition.type == "Ready" and condition.status == "True" then
    return { status = "Healthy", message = condition.message }
  end
  if condition.type == "Ready" and condition.status == "False" then
    return { status = "Degraded", message = condition.message }
  end
end
return hs

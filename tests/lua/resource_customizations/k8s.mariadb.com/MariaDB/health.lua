-- MariaDB (mariadb-operator): the Ready condition; a False Ready is progressing unless its reason says it failed.
local hs = { status = "Progressing", message = "No status info available" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
for _, condition in ipairs(obj.status.conditions) do
  if condition.type == "Ready" then
    hs.message = condition.message
    if condition.status == "True" then
      hs.status = "Healthy"
    elseif condition.reason == "Failed" then
      hs.status = "Degraded"
    else
      hs.status = "Progressing"
    end
    return hs
  end
end
return hs

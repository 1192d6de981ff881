-- Issuers are ready when their Ready condition is; a False Ready carries the registration error.
local hs = { status = "Progressing", message = "Initializing issuer" }
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
for i, condition in ipairs(obj.status.conditions) do
  if condition.type ~= "Ready" then
    goto continue
  end
  if condition.status == "True" then
    hs.status = "Healthy"
  elseif condition.status == "False" then
    hs.status = "Degraded"
  end
  hs.message = condition.message
  do return hs end
  ::continue::
end
return hs

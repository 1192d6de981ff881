-- Weft's own check for cert-manager Certificates, in Argo CD's style: the Ready condition decides, and while a
-- certificate is being issued the Issuing condition's message says why.
local hs = {}
if obj.status == nil or obj.status.conditions == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for certificate"
  return hs
end
local issuing = nil
local ready = nil
for _, condition in ipairs(obj.status.conditions) do
  if condition.type == "Issuing" and condition.status == "True" then
    issuing = condition
  elseif condition.type == "Ready" then
    ready = condition
  end
end
if issuing ~= nil then
  hs.status = "Progressing"
  hs.message = issuing.message
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message
elseif ready ~= nil and ready.status == "False" then
  hs.status = "Degraded"
  hs.message = ready.message
else
  hs.status = "Progressing"
  hs.message = "Waiting for certificate"
end
return hs

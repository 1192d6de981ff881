-- Argo Rollouts AnalysisRuns: the phase decides; a status message, when the controller wrote one, explains a
-- finished run better than the phase does.
local hs = {}
if obj.status == nil or obj.status.phase == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for analysis run to finish: status has not been reconciled."
  return hs
end
local phase = obj.status.phase
if phase == "Pending" or phase == "Running" then
  hs.status = "Progressing"
  hs.message = "Analysis run is running"
elseif phase == "Successful" then
  hs.status = "Healthy"
  hs.message = "Analysis run completed successfully"
elseif phase == "Failed" then
  hs.status = "Degraded"
  hs.message = "Analysis run failed"
elseif phase == "Error" then
  hs.status = "Degraded"
  hs.message = "Analysis run had an error"
elseif phase == "Inconclusive" then
  hs.status = "Unknown"
  hs.message = "Analysis run was inconclusive"
else
  hs.status = "Unknown"
  hs.message = "Unknown phase " .. phase
end
if hs.status ~= "Progressing" and obj.status.message ~= nil and string.find(obj.status.message, "Status Message:", 1, true) == 1 then
  hs.message = obj.status.message
end
return hs

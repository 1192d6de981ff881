-- Argo Rollouts Experiments: the phase decides.
local phases = {
  Pending = { "Progressing", "Experiment is pending" },
  Running = { "Progressing", "Experiment is running" },
  Successful = { "Healthy", "Experiment is successful" },
  Failed = { "Degraded", "Experiment has failed" },
  Error = { "Degraded", "Experiment had an error" },
}
if obj.status == nil or obj.status.phase == nil then
  return { status = "Progressing", message = "Waiting for experiment to finish: status has not been reconciled." }
end
local verdict = phases[obj.status.phase]
if verdict == nil then
  return { status = "Unknown", message = "Unknown experiment phase " .. obj.status.phase }
end
local status, message = unpack(verdict)
return { status = status, message = message }

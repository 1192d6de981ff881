-- ECK Elasticsearch clusters: the phase first, then the node count against the node sets, then the health colour.
local hs = {}
if obj.status == nil or obj.status.phase == nil then
  return { status = "Progressing", message = "Waiting for the Elasticsearch operator" }
end
local phase = obj.status.phase
if phase == "Invalid" then
  return { status = "Degraded", message = "Elasticsearch phase is Invalid" }
end
if phase ~= "Ready" then
  return { status = "Progressing", message = "Elasticsearch phase is " .. phase }
end
local desired = 0
for _, nodeSet in ipairs(obj.spec and obj.spec.nodeSets or {}) do
  desired = desired + (nodeSet.count or 0)
end
local available = obj.status.availableNodes or 0
if available < desired then
  hs.status = "Progressing"
  hs.message = string.format("The desired amount of availableNodes is %d but the current amount is %d", desired, available)
  return hs
end
local health = obj.status.health
if health == "green" then
  hs.status = "Healthy"
  hs.message = "Elasticsearch Cluster status is Green"
elseif health == "yellow" then
  hs.status = "Progressing"
  hs.message = "Elasticsearch Cluster status is Yellow. Check the status of indices, replicas and shards"
elseif health == "red" then
  hs.status = "Degraded"
  hs.message = "Elasticsearch Cluster status is Red. Check the status of indices, replicas and shards"
else
  hs.status = "Unknown"
  hs.message = "Elasticsearch Cluster health is " .. tostring(health)
end
return hs

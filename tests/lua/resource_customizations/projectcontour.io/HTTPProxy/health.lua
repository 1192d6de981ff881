-- Contour HTTPProxies: the Valid condition. An invalid proxy whose only errors are missing includes is a parent
-- whose children are checked on their own, so it is healthy with a note.
if obj.status == nil then
  return { status = "Progressing", message = "Waiting for status" }
end
if obj.status.conditions == nil then
  return { status = "Progressing", message = obj.status.description or "Waiting for controller" }
end
for _, condition in ipairs(obj.status.conditions) do
  if condition.type ~= "Valid" then
    goto continue
  end
  if condition.status == "True" then
    return { status = "Healthy", message = condition.message }
  end
  local onlyIncludes = condition.errors ~= nil and #condition.errors > 0
  for _, err in ipairs(condition.errors or {}) do
    if string.find(err.type, "Include", 1, true) ~= 1 then
      onlyIncludes = false
    end
  end
  if onlyIncludes then
    return { status = "Healthy", message = "HTTPProxy inclusions cannot be health checked" }
  end
  do return { status = "Degraded", message = condition.message } end
  ::continue::
end
return { status = "Progressing", message = "Waiting for controller" }

obj.status.abort = nil
return obj

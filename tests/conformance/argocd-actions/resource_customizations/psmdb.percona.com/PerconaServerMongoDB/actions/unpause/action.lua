obj.spec.pause = false
return obj

obj.spec.lifecycle.desiredPhase = "Running"
return obj
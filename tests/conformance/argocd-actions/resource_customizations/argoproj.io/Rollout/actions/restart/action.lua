local os = require("os")
obj.spec.restartAt = os.date("!%Y-%m-%dT%XZ")
return obj

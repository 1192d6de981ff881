#!/bin/sh
echo "starting {{ .Release.Name }}"
exec app

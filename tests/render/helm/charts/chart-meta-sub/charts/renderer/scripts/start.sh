#!/bin/sh
exec nginx -g 'daemon off;'

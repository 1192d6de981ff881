#!/bin/sh
# A build that fails in a way no steering rule knows: it must stop at once, quoting the end of this log.
i=1
while [ "$i" -le 40 ]; do
    echo "bundling chunk $i of 40"
    i=$((i + 1))
done
echo "error: the invoice template references an unknown field: customer.vatId"
exit 3

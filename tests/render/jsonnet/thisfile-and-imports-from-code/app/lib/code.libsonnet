'imported-by-ext-code'

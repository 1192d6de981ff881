module github.com/acme/shop

go 1.22.4

require github.com/go-chi/chi/v5 v5.0.12

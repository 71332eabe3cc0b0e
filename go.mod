module github.com/perfgate/perfgate

go 1.26.8

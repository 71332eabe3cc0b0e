module github.com/perfgate/perfgate

go 1.26.0

require (
	github.com/electricbubble/gadb v0.1.0
	github.com/electricbubble/guia2 v0.1.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/perf v0.0.0-20260908200009-22c9c6c9d4da
	gotest.tools/v3 v3.5.2
	mvdan.cc/sh/v3 v3.14.1
)

require (
	github.com/aclements/go-moremath v0.0.0-20210112150236-f10218a38794 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/term v0.45.0 // indirect
)

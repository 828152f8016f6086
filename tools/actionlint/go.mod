// Module actionlint pins actionlint (github.com/rhysd/actionlint), the
// linter of the GitHub Actions workflows in .github/workflows, which
// `make release-check` builds into bin/actionlint. It is small, but a
// module of its own all the same: in tools/go.mod it would move goldmark,
// which tfplugindocs renders the docs with (v1.7.7 to v1.7.17), and build
// actionlint against a YAML parser other than the one its release pins
// (go.yaml.in/yaml/v4 rc.6 instead of rc.3).
module github.com/dynslice/terraform-provider-gke/tools/actionlint

go 1.26

tool github.com/rhysd/actionlint/cmd/actionlint

require (
	github.com/bmatcuk/doublestar/v4 v4.10.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-runewidth v0.0.21 // indirect
	github.com/mattn/go-shellwords v1.0.12 // indirect
	github.com/rhysd/actionlint v1.7.12 // indirect
	github.com/robfig/cron/v3 v3.0.1 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.3 // indirect
	golang.org/x/sync v0.20.0 // indirect
	golang.org/x/sys v0.42.0 // indirect
)

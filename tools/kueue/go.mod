// Module kueue pins the Kueue release whose CRDs the local sandbox installs
// into its kube-apiserver. Nothing imports Kueue: `make sandbox-bin` runs
// `go mod download` here, so the module proxy serves the files and this
// go.sum verifies them, and copies the CRDs into bin/kueue-crds. Keep the
// version in step with KUEUE_VERSION in the GNUmakefile (it checks). Do not
// run `go mod tidy` here: with no imports it would drop the requirement.
module github.com/dynslice/terraform-provider-gke/tools/kueue

go 1.26

require sigs.k8s.io/kueue v0.16.1

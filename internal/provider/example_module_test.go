package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The slice-stack module validates, and rejects bad inputs at plan time
// with messages that say what to change.
func TestAccSliceStackModuleInputs(t *testing.T) {
	needSandboxInventory(t, "block-a with exactly four free sub-blocks, which the module's errors count")
	root := t.TempDir()
	copyTree(t, "../../examples/modules", filepath.Join(root, "modules"))
	cli := newTerraformCLI(t, filepath.Join(root, "modules", "slice-stack"))
	cli.must("init", "-input=false", "-no-color", "-backend=false")
	cli.must("validate", "-no-color")

	cases := map[string]struct{ inputs, want string }{
		"name": {`name = "Bad_Name"`, "name must be 1-20 lower-case letters"},
		"topology": {`name = "t"
  slices = { a = { topology = "4x8x4" } }`, `dimensions must be in non-decreasing order`},
		"slice name": {`name = "t"
  slices = { "Bad" = { topology = "4x4x4" } }`, "Slice names must be DNS labels"},
		"more chips than the block has": {`name = "t"
  slices = { a = { topology = "4x8x8" }, b = { topology = "4x4x4" } }`,
			"The slices need 5 partitions (320 chips), but the stack has 4 sub-block(s) (256 chips) in block block-a"},
		"unknown sub-block": {`name = "t"
  sub_blocks = ["sub-block-a1", "nope"]`, "Some requested sub-blocks are not in block block-a: nope"},
		"sub_block_count": {`name = "t"
  sub_block_count = 0`, "sub_block_count must be at least 1"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(root, "case-"+strings.ReplaceAll(name, " ", "-"))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			config := `provider "gke" {}
module "stack" {
  source            = "../modules/slice-stack"
  zone              = "us-central1-a"
  reservation       = "tpu7x-reservation"
  reservation_block = "block-a"
  ` + tc.inputs + `
}
terraform {
  required_providers {
    gke = { source = "dynslice/gke" }
  }
}
`
			if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(config), 0o600); err != nil {
				t.Fatal(err)
			}
			c := newTerraformCLI(t, dir)
			c.must("init", "-input=false", "-no-color")
			out, err := c.run("plan", "-input=false", "-no-color")
			if err == nil {
				t.Fatalf("plan accepted the inputs:\n%s", out)
			}
			if got := strings.Join(strings.Fields(out), " "); !strings.Contains(got, tc.want) {
				t.Fatalf("plan error does not say %q:\n%s", tc.want, out)
			}
		})
	}
}

package blueprint

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

func TestReadModuleTypes(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "variables.tf", `
variable "any" {}
variable "s" {
  description = "a string"
  type        = string
}
variable "l" {
  type    = list
  default = []
}
variable "m" {
  type    = map(string)
  default = {}
}
variable "o" {
  type = map(object({ a = string, b = optional(bool, false) }))
  default = null
}
`)
	writeFile(t, dir, "outputs.tf", `output "x" {
  description = "the x"
  value       = var.s
}`)
	m, err := ReadModule(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]cty.Type{
		"any": cty.DynamicPseudoType,
		"s":   cty.String,
		"l":   cty.List(cty.DynamicPseudoType),
		"m":   cty.Map(cty.String),
		"o":   cty.Map(cty.ObjectWithOptionalAttrs(map[string]cty.Type{"a": cty.String, "b": cty.Bool}, []string{"b"})),
	}
	for name, typ := range want {
		v, ok := m.Variables[name]
		if !ok {
			t.Fatalf("variable %q not read; got %v", name, m.Variables)
		}
		if !v.Type.Equals(typ) {
			t.Errorf("variable %q: type %#v, want %#v", name, v.Type, typ)
		}
	}
	if !m.Variables["s"].Required || !m.Variables["any"].Required || m.Variables["o"].Required {
		t.Errorf("required: s %v, any %v, o %v; want true, true, false (a default of null is a default)",
			m.Variables["s"].Required, m.Variables["any"].Required, m.Variables["o"].Required)
	}
	if m.Variables["s"].Description != "a string" || m.Outputs["x"].Description != "the x" {
		t.Errorf("descriptions: %q, %q", m.Variables["s"].Description, m.Outputs["x"].Description)
	}
}

func TestReadModuleRefusesABadType(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "variables.tf", `variable "v" { type = strin }`)
	_, err := ReadModule(dir)
	var se *SourceError
	if !errors.As(err, &se) {
		t.Fatalf("ReadModule: %v, want a *SourceError", err)
	}
}

func TestReadModuleNeedsTerraformFiles(t *testing.T) {
	if _, err := ReadModule(t.TempDir()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("ReadModule of an empty directory: %v, want os.ErrNotExist", err)
	}
}

func TestReadMetadataIsStrict(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "metadata.yaml", "spec:\n  requirements:\n    services: [compute.googleapis.com]\n")
	m, err := ReadMetadata(dir)
	if err != nil || len(m.Spec.Requirements.Services) != 1 {
		t.Fatalf("ReadMetadata: %+v, %v", m, err)
	}
	writeFile(t, dir, "metadata.yaml", "spec:\n  requirement:\n    services: [compute.googleapis.com]\n")
	if _, err := ReadMetadata(dir); err == nil {
		t.Fatal("ReadMetadata accepted the misspelt key spec.requirement")
	}
}

func TestReferences(t *testing.T) {
	v := map[string]any{
		"a": "$(vars.project_id)-x",
		"b": []any{"$(cluster.cluster_id)", map[string]any{"c": "$(vars.zone) and $(vars.region)"}},
		"d": 3,
	}
	got := map[Reference]bool{}
	for _, r := range References(v) {
		got[r] = true
	}
	for _, r := range []Reference{{"vars", "project_id"}, {"cluster", "cluster_id"}, {"vars", "zone"}, {"vars", "region"}} {
		if !got[r] {
			t.Errorf("reference %v not found in %v", r, got)
		}
	}
	if len(got) != 4 {
		t.Errorf("references %v, want 4", got)
	}
}

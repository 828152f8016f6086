package blueprint

import (
	"os"
	"regexp"

	"sigs.k8s.io/yaml"
)

// Blueprint is the part of a cluster toolkit blueprint that says which
// modules a deployment calls and with what.
type Blueprint struct {
	Name   string         `json:"blueprint_name"`
	Vars   map[string]any `json:"vars"`
	Groups []Group        `json:"deployment_groups"`
}

// Group is a deployment group: its modules are applied together, after the
// groups before it.
type Group struct {
	Name      string                       `json:"group"`
	Providers map[string]TerraformProvider `json:"terraform_providers,omitempty"`
	Modules   []ModuleUse                  `json:"modules"`
}

// TerraformProvider is a provider that gcluster writes into the group's
// Terraform configuration.
type TerraformProvider struct {
	Source        string         `json:"source"`
	Version       string         `json:"version"`
	Configuration map[string]any `json:"configuration"`
}

// ModuleUse is one module of a group.
type ModuleUse struct {
	ID       string         `json:"id"`
	Source   string         `json:"source"`
	Use      []string       `json:"use,omitempty"`
	Settings map[string]any `json:"settings,omitempty"`
	Outputs  []string       `json:"outputs,omitempty"`
}

// ReadBlueprint reads a blueprint file; unknown keys are errors.
func ReadBlueprint(path string) (Blueprint, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Blueprint{}, err
	}
	var bp Blueprint
	if err := yaml.UnmarshalStrict(data, &bp); err != nil {
		return Blueprint{}, err
	}
	return bp, nil
}

// Reference is a $(vars.NAME) or $(MODULE.OUTPUT) in a blueprint value.
type Reference struct{ Source, Name string }

var referenceRE = regexp.MustCompile(`\$\(([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\)`)

// References lists the references in a setting's value, at any depth.
func References(v any) []Reference {
	var refs []Reference
	switch v := v.(type) {
	case string:
		for _, m := range referenceRE.FindAllStringSubmatch(v, -1) {
			refs = append(refs, Reference{Source: m[1], Name: m[2]})
		}
	case []any:
		for _, e := range v {
			refs = append(refs, References(e)...)
		}
	case map[string]any:
		for _, e := range v {
			refs = append(refs, References(e)...)
		}
	}
	return refs
}

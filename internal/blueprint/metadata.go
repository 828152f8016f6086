package blueprint

import (
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// Metadata is a module's metadata.yaml in the schema gcluster reads: the
// Cloud Foundation Toolkit's blueprint metadata (spec.requirements.services,
// the APIs a deployment enables) and the toolkit's own ghpc settings.
type Metadata struct {
	Spec struct {
		Requirements struct {
			Services []string `json:"services"`
		} `json:"requirements"`
	} `json:"spec"`
	Ghpc struct {
		InjectModuleID    string      `json:"inject_module_id,omitempty"`
		HasToBeUsed       bool        `json:"has_to_be_used,omitempty"`
		Validators        []Validator `json:"validators,omitempty"`
		DeprecationDate   string      `json:"deprecation_date,omitempty"`
		AlternativeModule string      `json:"alternative_module,omitempty"`
	} `json:"ghpc"`
}

// Validator is one of the ghpc validators gcluster runs on a module's
// settings before it writes the deployment.
type Validator struct {
	Validator    string         `json:"validator"`
	Inputs       map[string]any `json:"inputs"`
	ErrorMessage string         `json:"error_message,omitempty"`
	Level        string         `json:"level,omitempty"`
}

// ReadMetadata reads dir/metadata.yaml. A key the schema does not have is
// an error, so that a misspelt key cannot pass unnoticed.
func ReadMetadata(dir string) (Metadata, error) {
	data, err := os.ReadFile(filepath.Join(dir, "metadata.yaml"))
	if err != nil {
		return Metadata{}, err
	}
	var m Metadata
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		return Metadata{}, err
	}
	return m, nil
}

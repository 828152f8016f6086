package sandbox

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// SliceAdmission is the ValidatingAdmissionPolicy (and its binding) that
// rejects at admission the Slices GKE's validating webhook rejects: another
// type than tpu7x, a name that is not a DNS label of at most 49 characters,
// a topology outside the TPU7x rules, a partition count that does not match
// it, and empty or repeated partition IDs.
//
//go:embed admission/slice-rules.yaml
var SliceAdmission []byte

// sliceAdmissionPolicy is the policy's name in SliceAdmission; denials
// name it.
const sliceAdmissionPolicy = "tpu7x-slice-rules"

var admissionGVRs = map[string]schema.GroupVersionResource{
	"ValidatingAdmissionPolicy":        {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"},
	"ValidatingAdmissionPolicyBinding": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicybindings"},
}

// installSliceAdmission creates the policy and its binding, then waits
// until the API server enforces them: it learns of policies through a
// watch, so for a moment after the create it still admits anything.
func (sb *Sandbox) installSliceAdmission(ctx context.Context) error {
	dyn, err := dynamic.NewForConfig(sb.RESTConfig())
	if err != nil {
		return err
	}
	dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(SliceAdmission), 4096)
	for {
		var obj unstructured.Unstructured
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("reading the Slice admission policy: %w", err)
		}
		gvr, ok := admissionGVRs[obj.GetKind()]
		if !ok {
			return fmt.Errorf("the Slice admission policy file holds a %s, which the sandbox does not install", obj.GetKind())
		}
		if _, err := dyn.Resource(gvr).Create(ctx, &obj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("installing %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	// A dry-run create of a Slice the policy refuses (a v6e slice passes
	// the CRD's schema) is admitted until the policy is in force.
	probe := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": SliceGVR.GroupVersion().String(),
		"kind":       "Slice",
		"metadata":   map[string]any{"name": "sandbox-admission-probe"},
		"spec":       map[string]any{"type": "v6e", "topology": "4x4x4", "partitionIds": []any{"probe"}},
	}}
	return waitFor(ctx, sb.apiserver, "the Slice admission policy to be enforced", func(ctx context.Context) error {
		_, err := dyn.Resource(SliceGVR).Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case err == nil:
			return errors.New("a v6e Slice is still admitted")
		case strings.Contains(err.Error(), sliceAdmissionPolicy):
			return nil
		default:
			return err
		}
	})
}

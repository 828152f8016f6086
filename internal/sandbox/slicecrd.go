package sandbox

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// SliceCRD is the Slice custom resource definition the sandbox installs.
//
//go:embed crds/accelerator.gke.io_slices.yaml
var SliceCRD []byte

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

func (sb *Sandbox) installSliceCRD(ctx context.Context) error {
	var crd unstructured.Unstructured
	if err := yaml.Unmarshal(SliceCRD, &crd.Object); err != nil {
		return fmt.Errorf("reading the Slice CRD: %w", err)
	}
	dyn, err := dynamic.NewForConfig(sb.RESTConfig())
	if err != nil {
		return err
	}
	if _, err := dyn.Resource(crdGVR).Create(ctx, &crd, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("installing the Slice CRD: %w", err)
	}
	// Wait until the CRD is established and its resource is served.
	core, err := kubernetes.NewForConfig(sb.RESTConfig())
	if err != nil {
		return err
	}
	return waitFor(ctx, sb.apiserver, "the Slice CRD to be served", func(ctx context.Context) error {
		got, err := dyn.Resource(crdGVR).Get(ctx, crd.GetName(), metav1.GetOptions{})
		if err != nil {
			return err
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		established := false
		for _, c := range conds {
			m, _ := c.(map[string]any)
			if m["type"] == "Established" && m["status"] == "True" {
				established = true
			}
		}
		if !established {
			return errors.New("not established")
		}
		_, err = core.Discovery().ServerResourcesForGroupVersion("accelerator.gke.io/v1beta1")
		return err
	})
}

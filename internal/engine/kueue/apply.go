package kueue

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-log/tflog"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// kueueError explains an error of the Kueue API: a 404 on the resource
// means Kueue (v0.15 or later) is not installed.
func kueueError(o kueueObject, verb string, err error) error {
	var status apierrors.APIStatus
	if apierrors.IsNotFound(err) && errors.As(err, &status) && status.Status().Details != nil && status.Status().Details.Kind == "namespaces" {
		return fmt.Errorf("%s %s: namespace %s does not exist; create it first (for example with a kubernetes_namespace resource), "+
			"or remove it from namespaces: %w", verb, o, o.namespace, err)
	}
	if verb == "applying" && immutable(err) {
		return fmt.Errorf("applying %s: Kueue does not let this object's spec change once it is made, and it differs from what this "+
			"configuration asks for (it was made by an earlier configuration or provider version, or by hand): replace the "+
			"gke_kueue_slicing (terraform apply -replace=ADDRESS), which deletes its objects and makes them again: %w", o, err)
	}
	if apierrors.IsNotFound(err) && verb != "reading" && verb != "deleting" {
		return fmt.Errorf("%s %s: the cluster does not serve %s/%s %s: install Kueue v0.15 or later (its CRDs), then apply again: %w",
			verb, o, kernel.KueueGroup, kernel.KueueVersion, o.resource, err)
	}
	return fmt.Errorf("%s %s: %w", verb, o, err)
}

// immutable says whether err is the API server's refusal of a change to a
// field that Kueue's CRDs make immutable (a validation rule whose message
// says so).
func immutable(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return false
	}
	for _, c := range status.Status().Details.Causes {
		if strings.Contains(c.Message, "immutable") {
			return true
		}
	}
	return false
}

// ApplyKueueSlicing checks k (checkKueueBeforeApply: a KueueSetupError
// applies nothing), then creates or updates, by server-side apply, every
// object of k in dependency order, and deletes the LocalQueues of the
// namespaces in dropped (no longer wanted). A k.TPUQuota of 0 is the
// chips of k.NodePools (tpuQuota, read first); the quota applied is
// returned.
func (e *Kueue) ApplyKueueSlicing(ctx context.Context, k KueueSlicing, dropped []string) (int64, error) {
	if k.TPUQuota == 0 {
		var err error
		if k.TPUQuota, err = e.tpuQuota(ctx, k.NodePools); err != nil {
			return 0, err
		}
	}
	return k.TPUQuota, e.applyKueueSlicing(ctx, k, dropped)
}

// applyKueueSlicing is ApplyKueueSlicing with the quota known.
func (e *Kueue) applyKueueSlicing(ctx context.Context, k KueueSlicing, dropped []string) error {
	if err := e.checkKueueBeforeApply(ctx, k); err != nil {
		return err
	}
	for _, o := range k.objects() {
		c, err := e.kueueClient(ctx, o)
		if err != nil {
			return err
		}
		tflog.Info(ctx, "Applying Kueue object", map[string]any{"object": o.String()})
		if _, err := c.Apply(ctx, o.obj.GetName(), o.obj, metav1.ApplyOptions{FieldManager: kueueFieldManager, Force: true}); err != nil {
			return kueueError(o, "applying", err)
		}
	}
	for _, ns := range dropped {
		if err := e.deleteKueueObject(ctx, newKueueObject("LocalQueue", "localqueues", ns, k.Name, nil)); err != nil {
			return err
		}
	}
	return nil
}

// KueueDrift lists how the cluster's objects differ from k: an object
// missing, a field the provider applies with another value, or a
// ClusterQueue that Kueue does not report Active (with its reason and what
// to check).
func (e *Kueue) KueueDrift(ctx context.Context, k KueueSlicing) ([]string, error) {
	var drift []string
	for _, o := range k.objects() {
		c, err := e.kueueClient(ctx, o)
		if err != nil {
			return nil, err
		}
		live, err := c.Get(ctx, o.obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			drift = append(drift, o.String()+" is missing")
			continue
		}
		if err != nil {
			return nil, kueueError(o, "reading", err)
		}
		want, _, _ := unstructured.NestedMap(o.obj.Object, "spec")
		have, _, _ := unstructured.NestedMap(live.Object, "spec")
		if path := firstDifference("spec", want, have); path != "" {
			drift = append(drift, fmt.Sprintf("%s: %s was changed", o, path))
		}
	}
	inactive, err := e.queueDrift(ctx, k)
	if err != nil {
		return nil, err
	}
	if inactive != "" {
		drift = append(drift, inactive)
	}
	return drift, nil
}

// firstDifference is the path of the first value of want that have lacks
// or holds differently ("" when have has all of want). Quantities compare
// by value ("256" and 256 alike).
func firstDifference(path string, want, have any) string {
	switch w := want.(type) {
	case map[string]any:
		h, ok := have.(map[string]any)
		if !ok {
			return path
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if p := firstDifference(path+"."+k, w[k], h[k]); p != "" {
				return p
			}
		}
		return ""
	case []any:
		h, ok := have.([]any)
		if !ok || len(h) != len(w) {
			return path
		}
		for i := range w {
			if p := firstDifference(fmt.Sprintf("%s[%d]", path, i), w[i], h[i]); p != "" {
				return p
			}
		}
		return ""
	}
	if sameQuantity(want, have) || reflect.DeepEqual(want, have) {
		return ""
	}
	return path
}

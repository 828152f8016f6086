package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// wrapped matches texts, in order, as Terraform prints them in a
// diagnostic, where any space may have become a line break and other lines
// (the source location) may come between a summary and its detail.
func wrapped(texts ...string) *regexp.Regexp {
	patterns := make([]string, len(texts))
	for i, text := range texts {
		words := strings.Fields(text)
		for j, w := range words {
			words[j] = regexp.QuoteMeta(w)
		}
		patterns[i] = strings.Join(words, `\s+`)
	}
	return regexp.MustCompile(`(?s)` + strings.Join(patterns, `.*`))
}

// testFunctionOutputs evaluates each expression as an output through real
// Terraform and checks its value.
func testFunctionOutputs(t *testing.T, want map[string]knownvalue.Check) {
	t.Helper()
	var config strings.Builder
	var checks []statecheck.StateCheck
	i := 0
	for expr, check := range want {
		name := "o" + strings.Repeat("x", i)
		i++
		config.WriteString("output \"" + name + "\" { value = " + expr + " }\n")
		checks = append(checks, statecheck.ExpectKnownOutputValue(name, check))
	}
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps:                    []tfresource.TestStep{{Config: config.String(), ConfigStateChecks: checks}},
	})
}

// testFunctionError evaluates the expression through real Terraform and
// expects it to fail with the given text.
func testFunctionError(t *testing.T, expr, text string) {
	t.Helper()
	tfresource.UnitTest(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config:      "output \"o\" { value = " + expr + " }\n",
			ExpectError: wrapped(text),
		}},
	})
}

// rejectedTopologies are the broken topologies every topology function and
// validator must reject, with the text that names the rule.
var rejectedTopologies = map[string]string{
	"4x8x4":   `topology "4x8x4": dimensions must be in non-decreasing order (A ≤ B ≤ C); write the same shape as "4x4x8"`,
	"4x4x6":   `topology "4x4x6": every dimension of a super-slice must be a multiple of 4, and 6 is not; use 4 or 8`,
	"4x2x2":   `topology "4x2x2": sub-slice shapes are fixed, with no other order of the dimensions; write "2x2x4"`,
	"2x2x3":   `exactly one of the shapes "2x2x1", "2x2x2", "2x2x4" or "2x4x4"`,
	"8x8x256": `topology "8x8x256": 16384 chips exceed the tpu7x maximum of 9216 chips`,
	"4x4":     `topology "4x4": has 2 dimension(s), not 3; expected the form AxBxC with three positive integers`,
}

// awaitSliceState waits with a watch until the sandbox's Slice name
// reports state (its Ready condition's reason). It runs in goroutines
// beside an apply, so on a timeout (a minute) it fails the test with
// t.Error, saying what the slice reported.
func awaitSliceState(t *testing.T, name, state string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dyn, err := dynamic.NewForConfig(accSandbox.RESTConfig())
	if err != nil {
		t.Error(err)
		return
	}
	lw := sliceListWatch(dyn.Resource(engine.SliceGVR), name)
	last := "no Slice yet"
	_, err = watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, nil, func(ev watch.Event) (bool, error) {
		u, ok := ev.Object.(*unstructured.Unstructured)
		if !ok || ev.Type == watch.Deleted {
			return false, nil
		}
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range conds {
			if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
				last, _ = m["reason"].(string)
			}
		}
		return last == state, nil
	})
	if err != nil {
		t.Errorf("Slice %s did not report %s within a minute; it last reported %q: %v", name, state, last, err)
	}
}

// awaitSliceGone waits with a watch until the sandbox has no Slice named
// name; it fails the test after a minute.
func awaitSliceGone(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	lw := sliceListWatch(accKubeSlices(t), name)
	gone := func(store cache.Store) (bool, error) { return len(store.List()) == 0, nil }
	if _, err := watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, gone, func(ev watch.Event) (bool, error) {
		return ev.Type == watch.Deleted, nil
	}); err != nil {
		t.Fatalf("Slice %s was not deleted within a minute: %v", name, err)
	}
}

// sliceListWatch lists and watches the one Slice named name.
func sliceListWatch(slices dynamic.ResourceInterface, name string) cache.ListerWatcher {
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	return &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.FieldSelector = selector
			return slices.List(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.FieldSelector = selector
			return slices.Watch(ctx, o)
		},
	}
}

package kueue

import (
	"strings"
	"testing"
)

// Any JSON as the live object a drift check compares with what the
// provider applies (each object of a gke_kueue_slicing, or any JSON): the
// comparison never panics, names a path under spec when it finds a
// difference, finds none between an object and itself, or itself encoded
// and decoded again, or a copy with members added (the live object holds
// more than what was applied: defaults, status), and finds one when a
// value applied is missing.
func FuzzFirstDifference(f *testing.F) {
	for _, o := range seedSlicing.objects() {
		b, err := o.obj.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, b)
	}
	cq := seedObject(f, "ClusterQueue", nil)
	f.Add(cq, []byte(strings.Replace(string(cq), `"nominalQuota":"256"`, `"nominalQuota":256`, 1)))
	f.Add(cq, []byte(strings.Replace(string(cq), `"nominalQuota":"256"`, `"nominalQuota":"0.25Ki"`, 1)))
	f.Add(cq, []byte(`{"kind":"ClusterQueue","spec":{"resourceGroups":{"0":1}}}`))
	f.Add([]byte(`{"kind":"X","spec":{"a":[1,{"b":null}],"c":1.5e300}}`), []byte(`{"kind":"X","spec":"s"}`))
	f.Fuzz(func(t *testing.T, wantDoc, haveDoc []byte) {
		want := decoded(wantDoc)
		if want == nil {
			return
		}
		spec := want.Object["spec"]
		if p := firstDifference("spec", spec, spec); p != "" {
			t.Fatalf("%s: differs from itself at %s", wantDoc, p)
		}
		if p := firstDifference("spec", spec, again(t, want).Object["spec"]); p != "" {
			t.Fatalf("%s: differs from itself encoded and decoded again, at %s", wantDoc, p)
		}
		if m, ok := spec.(map[string]any); ok {
			more := again(t, want)
			grown, _ := more.Object["spec"].(map[string]any)
			grown["addedByTheServer"] = map[string]any{"x": int64(1)}
			if p := firstDifference("spec", m, grown); p != "" {
				t.Fatalf("%s: differs, at %s, from a copy with a member added", wantDoc, p)
			}
			for k := range m {
				// (A null applied is as good as missing.)
				delete(grown, k)
				if p := firstDifference("spec", m, grown); m[k] != nil && p != "spec."+k {
					t.Fatalf("%s: with %s missing, the difference found is %q", wantDoc, k, p)
				}
				break
			}
		}
		if have := decoded(haveDoc); have != nil {
			if p := firstDifference("spec", spec, have.Object["spec"]); p != "" && p != "spec" && !strings.HasPrefix(p, "spec.") && !strings.HasPrefix(p, "spec[") {
				t.Fatalf("%s against %s: difference at %q, not under spec", wantDoc, haveDoc, p)
			}
		}
	})
}

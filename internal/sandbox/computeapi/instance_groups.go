package computeapi

import (
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox/googleapi"
)

// The instance group managers of the sandbox's node pools. A GKE node
// pool's instanceGroupUrls name the managed instance group (MIG) that
// holds its VMs, and clients follow them: the Terraform google provider
// reads each group's targetSize for a pool's node_count, gcloud lists a
// pool's instances through it. Each pool has one zonal MIG, named as GKE
// names them (gke-CLUSTER-POOL-HASH-grp, the name in the nodes'
// created-by annotation), with one instance per node the pool asked for.
// The groups are read-only: they follow their pools.

// poolOfMIG finds the pool whose group is named name. Callers hold w.Mu.
func (w *API) poolOfMIG(name string) *cloud.NodePool {
	for _, p := range w.NodePools {
		if w.MigName(p.Name) == name {
			return p
		}
	}
	return nil
}

// migAction is what the group is doing to every instance while its pool
// is in status: creating them while the pool is provisioned, deleting
// them while it is deleted, nothing otherwise.
func migAction(status string) string {
	switch status {
	case "PROVISIONING":
		return "CREATING"
	case "STOPPING":
		return "DELETING"
	default:
		return "NONE"
	}
}

// migJSON renders the pool's group as instanceGroupManagers.get answers.
// Callers hold w.Mu.
func (w *API) migJSON(p *cloud.NodePool) map[string]any {
	name, base := w.MigName(p.Name), w.MigBase(p.Name)
	template := computeLinkBase + "projects/" + w.Inv.Project + "/global/instanceTemplates/" + base
	actions := map[string]int{}
	for _, a := range []string{"abandoning", "creating", "creatingWithoutRetries", "deleting", "none", "recreating",
		"refreshing", "restarting", "resuming", "starting", "stopping", "suspending", "verifying"} {
		actions[a] = 0
	}
	action := strings.ToLower(migAction(p.Status))
	actions[action] = p.NodeCount
	return map[string]any{
		"kind":              "compute#instanceGroupManager",
		"id":                computeID("instanceGroupManager", name),
		"creationTimestamp": p.Created.Format(computeTimeFormat),
		"name":              name,
		"zone":              w.zoneLink(),
		"selfLink":          w.zoneLink() + "/instanceGroupManagers/" + name,
		"instanceTemplate":  template,
		"versions":          []map[string]any{{"instanceTemplate": template, "targetSize": map[string]any{"calculated": p.NodeCount}}},
		"instanceGroup":     w.zoneLink() + "/instanceGroups/" + name,
		"baseInstanceName":  base,
		"fingerprint":       cloud.OpaqueID("fingerprint", name)[:12],
		"targetSize":        p.NodeCount,
		"currentActions":    actions,
		"status": map[string]any{
			"isStable":      action == "none",
			"versionTarget": map[string]any{"isReached": action == "none"},
			"stateful":      map[string]any{"hasStatefulConfig": false, "perInstanceConfigs": map[string]any{"allEffective": true}},
		},
		"updatePolicy":                map[string]any{"type": "OPPORTUNISTIC", "minimalAction": "REPLACE", "replacementMethod": "SUBSTITUTE"},
		"listManagedInstancesResults": "PAGELESS",
	}
}

// zoneMIGs renders the groups of the pools whose group name keep accepts,
// sorted by name.
func (w *API) zoneMIGs(keep func(string) bool) []map[string]any {
	w.Mu.Lock()
	defer w.Mu.Unlock()
	items := []map[string]any{}
	for _, p := range w.NodePools {
		if keep(w.MigName(p.Name)) {
			items = append(items, w.migJSON(p))
		}
	}
	sort.Slice(items, func(i, j int) bool { return fmt.Sprint(items[i]["name"]) < fmt.Sprint(items[j]["name"]) })
	return items
}

// listInstanceGroupManagers is instanceGroupManagers.list.
func (w *API) listInstanceGroupManagers(rw http.ResponseWriter, r *http.Request) {
	keep, ok := nameFilter(rw, r)
	if !ok {
		return
	}
	writeComputeList(rw, r, "compute#instanceGroupManagerList", w.zoneLink()+"/instanceGroupManagers", w.zoneMIGs(keep))
}

// aggregatedInstanceGroupManagers is instanceGroupManagers.aggregatedList.
func (w *API) aggregatedInstanceGroupManagers(rw http.ResponseWriter, r *http.Request) {
	keep, ok := nameFilter(rw, r)
	if !ok {
		return
	}
	writeAggregatedList(rw, r, "compute#instanceGroupManagerAggregatedList", w.aggregatedLink("instanceGroupManagers"),
		"zones/"+w.Inv.Zone, "instanceGroupManagers", w.zoneMIGs(keep))
}

func (w *API) getInstanceGroupManager(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	w.Mu.Lock()
	var out map[string]any
	if p := w.poolOfMIG(name); p != nil {
		out = w.migJSON(p)
	}
	w.Mu.Unlock()
	if out == nil {
		googleapi.NotFound(rw, fmt.Sprintf("projects/%s/zones/%s/instanceGroupManagers/%s", w.Inv.Project, w.Inv.Zone, name))
		return
	}
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

// listManagedInstances is instanceGroupManagers.listManagedInstances (a
// POST without a body): one instance per node the pool asked for, named
// as the pool's Nodes are.
func (w *API) listManagedInstances(rw http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	w.Mu.Lock()
	var items []map[string]any
	p := w.poolOfMIG(name)
	if p != nil {
		template := computeLinkBase + "projects/" + w.Inv.Project + "/global/instanceTemplates/" + w.MigBase(p.Name)
		status := "RUNNING"
		if p.Status == "PROVISIONING" {
			status = "PROVISIONING"
		}
		for h := range min(p.NodeCount, cloud.HostsPerSubBlock) {
			node := w.NodeName(p.Name, h)
			items = append(items, map[string]any{
				"name":           node,
				"id":             computeID("instance", node),
				"instance":       w.zoneLink() + "/instances/" + node,
				"instanceStatus": status,
				"currentAction":  migAction(p.Status),
				"version":        map[string]any{"instanceTemplate": template},
			})
		}
	}
	w.Mu.Unlock()
	if p == nil {
		googleapi.NotFound(rw, fmt.Sprintf("projects/%s/zones/%s/instanceGroupManagers/%s", w.Inv.Project, w.Inv.Zone, name))
		return
	}
	from, to, next, msg := computePage(r, len(items))
	if msg != "" {
		googleapi.BadRequest(rw, msg)
		return
	}
	out := map[string]any{"managedInstances": items[from:to]}
	if next != "" {
		out["nextPageToken"] = next
	}
	googleapi.WriteJSON(rw, http.StatusOK, out)
}

// nameFilterRE is the one filter the sandbox's lists evaluate: on the name,
// in the forms gcloud and the clients write ("name = x", "name != x",
// "name eq REGEX", "name ne REGEX", in parentheses or not, values quoted
// or not).
var nameFilterRE = regexp.MustCompile(`^\(?\s*name\s*(=|!=|eq|ne)\s*("[^"]*"|'[^']*'|[^\s()]+)\s*\)?$`)

// nameFilter reads a list's filter parameter: keep accepts the names it
// selects. Any other filter is answered 400, as computePage answers it.
// The filter is then removed from the request so that paging does not
// refuse it again.
func nameFilter(rw http.ResponseWriter, r *http.Request) (keep func(string) bool, ok bool) {
	q := r.URL.Query()
	f := strings.TrimSpace(q.Get("filter"))
	if f == "" {
		return func(string) bool { return true }, true
	}
	m := nameFilterRE.FindStringSubmatch(f)
	if m == nil {
		googleapi.BadRequest(rw, fmt.Sprintf("Invalid value for field 'filter': '%s'. The sandbox's Compute Engine API filters on the name only (name = x, name != x, name eq REGEX, name ne REGEX)", f))
		return nil, false
	}
	op, value := m[1], m[2]
	if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') {
		value = value[1 : len(value)-1]
	}
	q.Del("filter")
	r.URL.RawQuery = q.Encode()
	switch op {
	case "=":
		return func(n string) bool { return n == value }, true
	case "!=":
		return func(n string) bool { return n != value }, true
	}
	// eq and ne take an RE2 expression that must match the whole name.
	re, err := regexp.Compile("^(?:" + value + ")$")
	if err != nil {
		googleapi.BadRequest(rw, fmt.Sprintf("Invalid value for field 'filter': '%s'. %v", f, err))
		return nil, false
	}
	if op == "eq" {
		return re.MatchString, true
	}
	return func(n string) bool { return !re.MatchString(n) }, true
}

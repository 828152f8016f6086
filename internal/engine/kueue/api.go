package kueue

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"

	"github.com/dynslice/terraform-provider-gke/internal/engine/kernel"
)

// servedKueueAPI is what discovery says of the Kueue API group.
type servedKueueAPI struct {
	// Versions are the versions of the group the cluster serves; none
	// when it does not serve the group.
	Versions []string
	// Resources are the resources of kernel.KueueVersion, when it is served
	// (subresources such as clusterqueues/status included).
	Resources []string
}

// problem is the KueueAPIError of what is served, or nil when it has
// everything the path needs.
func (s servedKueueAPI) problem() *KueueAPIError {
	if !slices.Contains(s.Versions, kernel.KueueVersion) {
		return &KueueAPIError{Served: s.Versions, Missing: KueueResources}
	}
	var missing []string
	for _, r := range KueueResources {
		if !slices.Contains(s.Resources, r) {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		return &KueueAPIError{Served: s.Versions, Missing: missing}
	}
	return nil
}

// readServedKueueAPI asks the cluster's discovery which versions of
// kueue.x-k8s.io it serves, and the resources of kernel.KueueVersion: two GETs
// (/apis/kueue.x-k8s.io and /apis/kueue.x-k8s.io/v1beta2), each bounded
// by ctx and by the clients' request timeout. A group or version the
// cluster does not serve (404) is an answer, not an error.
func readServedKueueAPI(ctx context.Context, d discovery.DiscoveryInterface) (servedKueueAPI, error) {
	group, err := discoverGroup(ctx, d)
	if err != nil || group == nil {
		return servedKueueAPI{}, err
	}
	out := servedOf(group, nil)
	if !slices.Contains(out.Versions, kernel.KueueVersion) {
		return out, nil
	}
	list, err := discoverResources(ctx, d, kernel.KueueGroup+"/"+kernel.KueueVersion)
	if err != nil || list == nil {
		return out, err
	}
	return servedOf(group, list), nil
}

// servedOf is what the discovery of the Kueue API group, and of the
// resources of kernel.KueueVersion (list, nil when not read), say is
// served.
func servedOf(group *metav1.APIGroup, list *metav1.APIResourceList) servedKueueAPI {
	var out servedKueueAPI
	for _, v := range group.Versions {
		out.Versions = append(out.Versions, v.Version)
	}
	if list != nil {
		for _, r := range list.APIResources {
			out.Resources = append(out.Resources, r.Name)
		}
	}
	return out
}

// decodeDiscovery decodes a discovery document (an APIGroup, an
// APIResourceList) as the API server answers it in JSON.
func decodeDiscovery[T metav1.APIGroup | metav1.APIResourceList](body []byte) (*T, error) {
	var doc T
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, err
	}
	return &doc, nil
}

// discoverGroup is the Kueue API group, or nil when it is not served.
func discoverGroup(ctx context.Context, d discovery.DiscoveryInterface) (*metav1.APIGroup, error) {
	if rc := d.RESTClient(); rc != nil {
		body, err := rc.Get().AbsPath("/apis", kernel.KueueGroup).SetHeader("Accept", "application/json").DoRaw(ctx)
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading the discovery of API group %s: %w", kernel.KueueGroup, err)
		}
		g, err := decodeDiscovery[metav1.APIGroup](body)
		if err != nil {
			return nil, fmt.Errorf("reading the discovery of API group %s: %w", kernel.KueueGroup, err)
		}
		return g, nil
	}
	// A client without a REST client (the fakes of unit tests) answers
	// from memory.
	groups, err := d.ServerGroups()
	if err != nil {
		return nil, err
	}
	for i := range groups.Groups {
		if groups.Groups[i].Name == kernel.KueueGroup {
			return &groups.Groups[i], nil
		}
	}
	return nil, nil
}

// discoverResources is the resource list of groupVersion, or nil when it
// is not served.
func discoverResources(ctx context.Context, d discovery.DiscoveryInterface, groupVersion string) (*metav1.APIResourceList, error) {
	var list *metav1.APIResourceList
	var err error
	if rc := d.RESTClient(); rc != nil {
		var body []byte
		body, err = rc.Get().AbsPath("/apis", groupVersion).SetHeader("Accept", "application/json").DoRaw(ctx)
		if err == nil {
			list, err = decodeDiscovery[metav1.APIResourceList](body)
		}
	} else {
		list, err = d.ServerResourcesForGroupVersion(groupVersion)
	}
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the discovery of %s: %w", groupVersion, err)
	}
	return list, nil
}

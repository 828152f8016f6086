package googleapi

// ComputeLinkBase is where Compute Engine self links start. The GKE API
// links to Compute resources too: a node pool's instanceGroupUrls name its
// managed instance group.
const ComputeLinkBase = "https://www.googleapis.com/compute/v1/"

// ZoneLink is the Compute Engine link of a zone.
func ZoneLink(project, zone string) string {
	return ComputeLinkBase + "projects/" + project + "/zones/" + zone
}

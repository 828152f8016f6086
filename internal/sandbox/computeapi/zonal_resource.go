package computeapi

// zonalResourceJSON is what a reservation block, sub-block and slot each
// begin with: its kind, numeric ID, creation time, name, links and zone.
type zonalResourceJSON struct {
	Kind              string `json:"kind"`
	ID                string `json:"id"`
	CreationTimestamp string `json:"creationTimestamp"`
	Name              string `json:"name"`
	SelfLink          string `json:"selfLink"`
	SelfLinkWithID    string `json:"selfLinkWithId"`
	Zone              string `json:"zone"`
}

// zonalResource is the header of the resource name, with numeric ID id,
// of kind, in the collection at path (projects/P/zones/Z/...): its self
// link names it by name, its selfLinkWithId by ID. Callers hold w.Mu.
func (w *API) zonalResource(kind, collection, name, id string) zonalResourceJSON {
	return zonalResourceJSON{
		Kind: kind, ID: id, CreationTimestamp: w.Created.Format(computeTimeFormat), Name: name,
		SelfLink: computeLinkBase + collection + "/" + name, SelfLinkWithID: computeLinkBase + collection + "/" + id,
		Zone: w.zoneLink(),
	}
}

// capacityJSON is the capacity of a reservation block or sub-block: its
// status and host counts.
type capacityJSON struct {
	Status         string `json:"status"`
	Count          int    `json:"count"`
	InUseCount     int    `json:"inUseCount"`
	InUseHostCount int    `json:"inUseHostCount"`
}

// readyCapacity is a READY capacity of count hosts, inUse of them in use
// by the reservation and running of them running a VM.
func readyCapacity(count, inUse, running int) capacityJSON {
	return capacityJSON{Status: "READY", Count: count, InUseCount: inUse, InUseHostCount: running}
}

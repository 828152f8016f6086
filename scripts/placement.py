#!/usr/bin/env python3
"""Wait for the Jobs of a namespace to run, and show where their pods landed.

    placement.py NAMESPACE JOBS [--timeout SECONDS]

Uses kubectl (KUBECONFIG from the environment). Waits until the namespace has
JOBS Jobs, every pod is bound and every Job is Complete, then prints, per Job,
the slice (the cloud.google.com/gke-tpu-slice label of the pods' nodes), the
pods and the nodes, and how many pods were seen with their DRA claims
allocated (claims live only while their pod runs, so a fast pod may be missed). Fails (exit 1) when a Job's
pods are not all on one slice, when two Jobs share a slice, or on timeout, printing each pending pod's scheduling condition.
"""
import json
import subprocess
import sys
import time

SLICE_LABEL = "cloud.google.com/gke-tpu-slice"


def kubectl(*args):
    out = subprocess.run(["kubectl", *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def scheduled(pod):
    for c in pod.get("status", {}).get("conditions", []):
        if c["type"] == "PodScheduled":
            return "%s %s: %s" % (c["status"], c.get("reason", ""), c.get("message", ""))
    return "no PodScheduled condition yet"


def complete(job):
    return any(c["type"] == "Complete" and c["status"] == "True" for c in job.get("status", {}).get("conditions", []))


def snapshot(ns, want):
    jobs = kubectl("get", "jobs", "-n", ns, "-o", "json")["items"]
    pods = kubectl("get", "pods", "-n", ns, "-o", "json")["items"]
    pending = [p for p in pods if not p["spec"].get("nodeName")]
    if len(jobs) != want:
        return None, "%d Jobs, want %d" % (len(jobs), want), pending
    if pending:
        return None, "%d pod(s) not bound" % len(pending), pending
    left = [j["metadata"]["name"] for j in jobs if not complete(j)]
    if left:
        return None, "Jobs not complete: " + ", ".join(left), []
    return (jobs, pods), "", []


def record_claims(ns, seen):
    """Adds to seen (pod name -> chips) the claims allocated now: the claim
    controller deletes a pod's claims once the pod has finished."""
    for c in kubectl("get", "resourceclaims", "-n", ns, "-o", "json")["items"]:
        a = c.get("status", {}).get("allocation")
        if not a:
            continue
        for ref in c["metadata"].get("ownerReferences", []):
            if ref["kind"] == "Pod":
                seen[ref["name"]] = len(a["devices"]["results"])


def main():
    ns, want = sys.argv[1], int(sys.argv[2])
    timeout = float(sys.argv[4]) if len(sys.argv) > 4 and sys.argv[3] == "--timeout" else 180
    deadline = time.time() + timeout
    claimed = {}
    while True:
        record_claims(ns, claimed)
        got, why, pending = snapshot(ns, want)
        if got:
            break
        if time.time() > deadline:
            print("  not placed in %ds: %s" % (timeout, why))
            for p in pending[:5]:
                print("    %s: PodScheduled=%s" % (p["metadata"]["name"], scheduled(p)))
            return 1
        time.sleep(0.3)
    jobs, pods = got
    nodes = {n["metadata"]["name"]: n for n in kubectl("get", "nodes", "-o", "json")["items"]}
    by_job = {}
    for p in pods:
        job = p["metadata"]["labels"].get("batch.kubernetes.io/job-name", "?")
        by_job.setdefault(job, []).append(p)
    ok, used = True, {}
    print("  %-40s %-18s %5s %6s %s" % ("JOB", "SLICE", "PODS", "NODES", "DRA CLAIMS"))
    for job in sorted(by_job):
        ps = by_job[job]
        slices = sorted({nodes[p["spec"]["nodeName"]]["metadata"]["labels"].get(SLICE_LABEL, "(none)") for p in ps})
        hosts = {p["spec"]["nodeName"] for p in ps}
        with_claims = [p for p in ps if p["spec"].get("resourceClaims")]
        allocated = sum(1 for p in with_claims if claimed.get(p["metadata"]["name"]) == 4)
        print("  %-40s %-18s %5d %6d %s" % (job, ",".join(slices), len(ps), len(hosts),
                                          "%d of %d pods seen allocated, 4 chips each" % (allocated, len(ps)) if with_claims else "-"))
        if len(slices) != 1 or slices[0] == "(none)":
            print("    the pods of Job %s are not all on one slice" % job)
            ok = False
        elif slices[0] in used:
            print("    Jobs %s and %s share slice %s" % (job, used[slices[0]], slices[0]))
            ok = False
        else:
            used[slices[0]] = job
    print("  every Job complete")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

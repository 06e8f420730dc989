"""A private network of namespaces for the multi-node tests and scripts/bench_nodes.sh: one
namespace per node, each with an eth0 (veth) whose peer sits on a bridge inside a switch
namespace of its own. Everything is made here and deleted by close(): the host's own network
namespace is never touched (no address, route, link or bridge is added to it), so nothing in
this network can reach the host's network or beyond."""
import os
import random
import subprocess


def ip(*args):
    subprocess.run(["ip"] + list(args), check=True, capture_output=True, timeout=30)


class Net:
    def __init__(self, names):
        """names: the nodes, in order; node i gets 10.A.B.(i+1)/24."""
        self.tag = "rc%04x" % random.randrange(0x10000)
        self.prefix = "10.%d.%d" % (random.randrange(64, 250), random.randrange(1, 250))
        self.switch = self.tag + "-sw"
        self.ns, self.addr = {}, {}
        self.made = []
        try:
            self._add_ns(self.switch)
            ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            ip("-n", self.switch, "link", "set", "br0", "up")
            for i, name in enumerate(names):
                ns = "%s-%s" % (self.tag, name)
                self._add_ns(ns)
                peer = "p%d" % i
                ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", peer, "netns", self.switch)
                ip("-n", self.switch, "link", "set", peer, "master", "br0", "up")
                addr = "%s.%d" % (self.prefix, i + 1)
                ip("-n", ns, "addr", "add", addr + "/24", "dev", "eth0")
                ip("-n", ns, "link", "set", "eth0", "up")
                self.ns[name], self.addr[name] = ns, addr
        except Exception:
            self.close()
            raise

    def _add_ns(self, ns):
        ip("netns", "add", ns)
        self.made.append(ns)
        ip("-n", ns, "link", "set", "lo", "up")

    @property
    def cidr(self):
        return self.prefix + ".0/24"

    def cmd(self, name, argv):
        """argv run inside node NAME (ip netns exec execs it: the pid is the program's)."""
        return ["ip", "netns", "exec", self.ns[name]] + list(argv)

    def close(self):
        """Deletes every namespace made (their veths and the bridge go with them)."""
        for ns in reversed(self.made):
            subprocess.run(["ip", "netns", "del", ns], capture_output=True, timeout=30)
        self.made = []

    def leftovers(self):
        out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=30).stdout
        return [line.split()[0] for line in out.splitlines() if line.startswith(self.tag)]


def usable():
    """None when namespaces can be made here, else why not."""
    if os.geteuid() != 0:
        return "needs root (ip netns)"
    try:
        n = Net(["probe"])
        n.close()
    except (OSError, subprocess.CalledProcessError) as e:
        return "ip netns failed: %s" % e
    return None

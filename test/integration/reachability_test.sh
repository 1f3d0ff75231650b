#!/bin/bash
# Interface inventory, selection and reachability on simulated hosts
# (network namespaces built with contrib/netcluster). Needs root.
. "$(dirname "$0")/../lib/testcase.sh"
. "$(dirname "$0")/../lib/netns.sh"

# One host with only lo; KIND_LINK names the link made for a kind case.
# kind_case NAME KIND IP-LINK-ARGS...: creates the link NAME with an address
# and checks the kind orca_info reports for it.
kind_case() {
    local name=$1 kind=$2; shift 2
    local p; p=$(new_cluster --hosts 1 --no-link)
    add_link_or_skip "$p" h1 "$kind" "$@"
    in_host "$p" h1 ip addr add 10.9.0.1/24 dev "$name"
    in_host "$p" h1 ip link set "$name" up
    local out; out=$(orca_info_in "$p" h1 --interfaces --parsable)
    expect_line "$out" "^iface:$name:10\.9\.0\.1/24:kind=$kind:selected=yes:"
    expect_line "$out" '^iface:lo:127\.0\.0\.1/8:kind=loopback:selected=yes:'
}

# The name never decides the kind: a bridge called virbr0 and one called eth9.
kind_bridge_named_virbr0() { kind_case virbr0 bridge virbr0 type bridge; }
kind_bridge_named_eth9() { kind_case eth9 bridge eth9 type bridge; }
kind_veth() { kind_case vth0 veth vth0 type veth peer name vth1; }
kind_vlan() {
    local p; p=$(new_cluster --hosts 1 --no-link)
    in_host "$p" h1 ip link add vth0 type veth peer name vth1
    add_link_or_skip "$p" h1 vlan link vth0 name vth0.10 type vlan id 10
    in_host "$p" h1 ip addr add 10.9.0.1/24 dev vth0.10
    local out; out=$(orca_info_in "$p" h1 --interfaces --parsable)
    expect_line "$out" '^iface:vth0\.10:10\.9\.0\.1/24:kind=vlan:'
}
kind_dummy() { kind_case dum0 dummy dum0 type dummy; }
kind_macvlan_is_other_virtual() {
    local p; p=$(new_cluster --hosts 1 --no-link)
    in_host "$p" h1 ip link add vth0 type veth peer name vth1
    add_link_or_skip "$p" h1 macvlan mv0 link vth0 type macvlan
    in_host "$p" h1 ip addr add 10.9.0.1/24 dev mv0
    local out; out=$(orca_info_in "$p" h1 --interfaces --parsable)
    expect_line "$out" '^iface:mv0:10\.9\.0\.1/24:kind=other-virtual:'
}
kind_tun() {
    [ -c /dev/net/tun ] || skip "no /dev/net/tun on this machine"
    local p; p=$(new_cluster --hosts 1 --no-link)
    in_host "$p" h1 ip tuntap add dev tun0 mode tun 2>/dev/null || skip "this kernel cannot create tun devices"
    in_host "$p" h1 ip addr add 10.9.0.1/24 dev tun0
    local out; out=$(orca_info_in "$p" h1 --interfaces --parsable)
    expect_line "$out" '^iface:tun0:10\.9\.0\.1/24:kind=tun/tap:'
}

lo_and_virbr0_only_selects_both() {
    local p; p=$(new_cluster --hosts 1 --no-link --virbr)
    local out; out=$(orca_info_in "$p" h1 --interfaces --parsable)
    expect_line "$out" '^iface:lo:127\.0\.0\.1/8:kind=loopback:selected=yes:'
    expect_line "$out" '^iface:virbr0:192\.168\.122\.1/24:kind=bridge:selected=yes:'
    local comp
    for comp in netlink weighted; do
        # A peer elsewhere advertising 192.168.122.1: that is my own address.
        out=$(orca_info_in "$p" h1 --reach 192.168.122.1 --parsable --mca reachable "$comp")
        [ "$(weight_of "$out" 192.168.122.1 192.168.122.1)" -eq 0 ] || fail "$comp: own address not refused"
        expect_line "$out" 'reach:192\.168\.122\.1:192\.168\.122\.1:weight=0:reason=.*also an address of this host'
        # The same address from a peer on this host is a path.
        out=$(orca_info_in "$p" h1 --reach 192.168.122.1 --same-host --parsable --mca reachable "$comp")
        [ "$(weight_of "$out" 192.168.122.1 192.168.122.1)" -gt 0 ] || fail "$comp: same-host pair refused"
        # And a same-host peer always has loopback, best of all.
        out=$(orca_info_in "$p" h1 --reach 127.0.0.1 192.168.122.1 --same-host --parsable --mca reachable "$comp")
        local lo; lo=$(weight_of "$out" 127.0.0.1 127.0.0.1)
        [ "$lo" -gt 0 ] || fail "$comp: loopback pair not positive"
        [ "$(head -1 <<<"$out")" = "$(grep -F 'reach:127.0.0.1:127.0.0.1:' <<<"$out")" ] ||
            fail "$comp: loopback is not the first pair: $out"
    done
}

identical_virbr0_on_two_hosts_is_never_a_path() {
    local p; p=$(new_cluster --hosts 2 --virbr --docker)
    local comp out
    for comp in netlink weighted; do
        # What h2 would advertise: its real address and its bridges.
        out=$(orca_info_in "$p" h1 --reach 10.200.0.2/24 192.168.122.1/24@bridge 172.17.0.1/16@bridge \
            --parsable --mca reachable "$comp")
        [ "$(weight_of "$out" 192.168.122.1 192.168.122.1)" -eq 0 ] || fail "$comp: virbr0 pair not 0"
        [ "$(weight_of "$out" 172.17.0.1 172.17.0.1)" -eq 0 ] || fail "$comp: docker0 pair not 0"
        expect_line "$(head -1 <<<"$out")" '^reach:10\.200\.0\.1:10\.200\.0\.2:weight=[1-9]'
    done
}

netlink_follows_the_kernel_route() {
    local p; p=$(new_cluster --hosts 2 --second-link)
    # h2 has a service address reachable from h1 only through eth1.
    in_host "$p" h2 ip addr add 10.250.0.2/32 dev lo
    in_host "$p" h1 ip route add 10.250.0.2/32 via 10.201.0.2 dev eth1
    local kernel; kernel=$(in_host "$p" h1 ip -o route get 10.250.0.2 | sed -E 's/.* dev ([^ ]+).*/\1/')
    [ "$kernel" = eth1 ] || fail "ip route get says $kernel"
    local out; out=$(orca_info_in "$p" h1 --reach 10.250.0.2/32 --parsable --mca reachable netlink)
    local via_eth1 via_eth0
    via_eth1=$(weight_of "$out" 10.201.0.1 10.250.0.2)
    via_eth0=$(weight_of "$out" 10.200.0.1 10.250.0.2)
    [ "$via_eth1" -gt "$via_eth0" ] || fail "eth1 ($via_eth1) not above eth0 ($via_eth0)"
    # The best pair is on the interface `ip route get` names.
    expect_line "$(head -1 <<<"$out")" '^reach:10\.201\.0\.1:10\.250\.0\.2:.*via 10\.201\.0\.2 on eth1'
    expect_line "$out" 'reach:10\.200\.0\.1:10\.250\.0\.2:weight=[0-9]+:reason=the kernel would send to 10\.250\.0\.2 on eth1'
    # A destination with no route at all is never tried.
    out=$(orca_info_in "$p" h1 --reach 10.99.0.1 --parsable --mca reachable netlink)
    [ "$(weight_of "$out" 10.200.0.1 10.99.0.1)" -eq 0 ] || fail "unroutable pair not 0"
    expect_line "$out" 'reach:10\.200\.0\.1:10\.99\.0\.1:weight=0:reason=no route'
}

ipv6_only_hosts() {
    local p; p=$(new_cluster --hosts 2 --ipv6-only)
    local out; out=$(orca_info_in "$p" h1 --interfaces --parsable)
    expect_line "$out" '^iface:eth0:fd00:10:200::1/64:kind=veth:selected=yes:'
    expect_line "$out" '^iface:eth0:fe80:[0-9a-f:]+/64:kind=veth:selected=yes:'
    ! grep -qE '^iface:eth0:[0-9]+\.' <<<"$out" || fail "an IPv4 address on eth0: $out"
    local comp
    for comp in netlink weighted; do
        out=$(orca_info_in "$p" h1 --reach fd00:10:200::2/64 --parsable --mca reachable "$comp")
        expect_line "$(head -1 <<<"$out")" '^reach:fd00:10:200::1:fd00:10:200::2:weight=[1-9]'
    done
}

include_list_that_matches_nothing_fails_and_lists_interfaces() {
    local p; p=$(new_cluster --hosts 1 --no-link --virbr)
    local err
    if err=$(orca_info_in "$p" h1 --mca oob_tcp_if_include eth7 --interfaces 2>&1 >/dev/null); then
        fail "orca_info succeeded with an include list that matches nothing"
    fi
    expect_line "$err" '"eth7" of oob_tcp_if_include matches no interface'
    expect_line "$err" 'lo \(127\.0\.0\.1/8'
    expect_line "$err" 'virbr0 \(192\.168\.122\.1/24'
    # A list that names virbr0 keeps loopback for same-host peers.
    local out; out=$(orca_info_in "$p" h1 --mca oob_tcp_if_include virbr0 --interfaces --parsable)
    expect_line "$out" '^iface:virbr0:192\.168\.122\.1/24:kind=bridge:selected=yes:reason=included by oob_tcp_if_include'
    expect_line "$out" '^iface:lo:127\.0\.0\.1/8:kind=loopback:selected=yes:reason=loopback, kept'
}

CASES=(kind_bridge_named_virbr0 kind_bridge_named_eth9 kind_veth kind_vlan kind_dummy kind_macvlan_is_other_virtual
       kind_tun lo_and_virbr0_only_selects_both
       identical_virbr0_on_two_hosts_is_never_a_path netlink_follows_the_kernel_route ipv6_only_hosts
       include_list_that_matches_nothing_fails_and_lists_interfaces)

if ! netns_available; then
    for c in "${CASES[@]}"; do skip_case "Reachability.$c" "cannot create network namespaces here (needs root and ip netns)"; done
    exit 0
fi
for c in "${CASES[@]}"; do run_case "Reachability.$c" "$c"; done
finish_cases

#!/bin/bash
# orcarun end to end with plm/local (test/lib/orcarun_local.sh): where the
# ranks go and what they see. Mapping by slot and by node, the rank
# environment and working directory, variables forwarded with -x, -genv and
# -genvlist, the routing tree and tree spawn (--report-routes), the exit
# status of a job whose rank fails, more processes than slots, a Slurm
# allocation's nodes, and --report-topology. Every case checks exact outputs
# and exit statuses, and that nothing of it is left once it is over.
. "$(dirname "$0")/../../lib/orcarun_local.sh"

# ---------------------------------------------------------------------------------
# 1. The simplest job

hostname_twice() {
    setup
    local over=()
    # -n 2 needs two slots: one per core.
    [ "$CORES" -ge 2 ] || over=(--oversubscribe)
    orc "${over[@]}" -n 2 hostname
    expect_status 0
    expect_stdout "$HOST
$HOST"
    expect_no_stderr
    done_case
}

# Without -n, one rank per slot: the cores, shared among simulated nodes.
one_rank_per_slot_by_default() {
    setup
    local slots=$((CORES / 2)); [ "$slots" -ge 1 ] || slots=1
    orc --mca plm_local_num_nodes 2 sh -c 'echo "$ORCA_RANK $ORCA_SIZE"'
    expect_status 0
    local expected="" r
    for ((r = 0; r < 2 * slots; r++)); do expected+="$r $((2 * slots))"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    done_case
}

# Ranks start in orcarun's working directory.
ranks_start_in_the_working_directory() {
    setup
    mkdir "$T/work dir"
    status=0
    (cd "$T/work dir" && ORCA_TEST_MARKER="$M" run_orcarun "$T/out" "$T/err" --mca plm_local_num_nodes 2 -n 2 pwd) ||
        status=$?
    expect_status 0
    expect_stdout "$T/work dir
$T/work dir"
    done_case
}

# ---------------------------------------------------------------------------------
# 2. The environment of every rank

ENV_COMMAND='echo $ORCA_RANK $ORCA_SIZE $ORCA_LOCAL_RANK $ORCA_LOCAL_SIZE $ORCA_NODE'

rank_environment_by_slot() {
    setup
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe sh -c "$ENV_COMMAND"
    expect_status 0
    # By slot: node 0 takes the first ranks, then node 1, ...
    local counts expected="" node rank=0 k
    mapfile -t counts < <(by_slot_counts 4 8)
    for ((node = 0; node < 4; node++)); do
        for ((k = 0; k < counts[node]; k++)); do
            expected+="$rank 8 $k ${counts[node]} $node"$'\n'
            rank=$((rank + 1))
        done
    done
    expect_sorted_stdout "${expected%$'\n'}"
    expect_no_stderr
    done_case
}

rank_environment_by_node() {
    setup
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe --map-by node sh -c "$ENV_COMMAND"
    expect_status 0
    # By node: round and round, rank r on node r % 4.
    local expected="" r
    for ((r = 0; r < 8; r++)); do expected+="$r 8 $((r / 4)) 2 $((r % 4))"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    expect_no_stderr
    done_case
}

# -N 2 (and Hydra's -ppn, ppr:2:node) on 3 nodes: two consecutive ranks on
# each, as --display-map prints before they start; -n 5 takes the first
# five of those places.
rank_environment_per_node() {
    setup
    orc --mca plm_local_num_nodes 3 -N 2 --display-map sh -c "$ENV_COMMAND"
    expect_status 0
    expect_sorted_stdout "0 6 0 2 0
1 6 1 2 0
2 6 0 2 1
3 6 1 2 1
4 6 0 2 2
5 6 1 2 2"
    expect_line err "orcarun: map of 6 ranks on 3 hosts (-N 2):"
    # Simulated nodes share this host's cores as slots: how many is the machine's.
    expect_match err "^  $HOST_RE#1 \([0-9]+ slots?\): ranks 0-1$"
    expect_match err "^  $HOST_RE#3 \([0-9]+ slots?\): ranks 4-5$"
    orc --mca plm_local_num_nodes 3 -ppn 2 -n 5 sh -c "$ENV_COMMAND"
    expect_status 0
    expect_sorted_stdout "0 5 0 2 0
1 5 1 2 0
2 5 0 2 1
3 5 1 2 1
4 5 0 1 2"
    expect_no_stderr
    printf '%s slots=1\n' "$HOST" >"$T/hosts"
    orc --hostfile "$T/hosts" --map-by ppr:2:node true
    expect_failure
    expect_text err "-N 2 puts 2 ranks on $HOST, which has 1 slot(s)."
    done_case
}

# --rank-by renumbers what the map put on each node: -N 2 on 3 nodes ranked
# by node deals ranks round-robin (node 0 runs ranks 0 and 3); --map-by node
# ranked by slot gives each node consecutive ranks. Each rank's own
# environment agrees with the map printed before the start.
ranks_renumbered_by_rank_by() {
    setup
    orc --mca plm_local_num_nodes 3 -N 2 --rank-by node --display-map sh -c "$ENV_COMMAND"
    expect_status 0
    expect_sorted_stdout "0 6 0 2 0
1 6 0 2 1
2 6 0 2 2
3 6 1 2 0
4 6 1 2 1
5 6 1 2 2"
    expect_line err "orcarun: map of 6 ranks on 3 hosts (-N 2, --rank-by node):"
    expect_match err "^  $HOST_RE#1 \([0-9]+ slots?\): ranks 0,3$"
    expect_match err "^  $HOST_RE#3 \([0-9]+ slots?\): ranks 2,5$"
    orc --mca plm_local_num_nodes 4 -n 8 --oversubscribe --map-by node --rank-by slot sh -c "$ENV_COMMAND"
    expect_status 0
    local expected="" r
    for ((r = 0; r < 8; r++)); do expected+="$r 8 $((r % 2)) 2 $((r / 2))"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    expect_no_stderr
    orc --rank-by numa -n 1 true
    expect_failure
    expect_text err "orcarun: the option --rank-by numa cannot be used as given: orcarun ranks by slot or node;"
    expect_no_stdout
    done_case
}

# A hostfile's max_slots caps a host when the job is oversubscribed: the
# map fills past the slots up to the cap and no further; a job beyond
# every cap, or -N beyond one, is refused before any daemon starts.
max_slots_caps_a_host() {
    setup
    printf '%s slots=1 max_slots=2\n' "$HOST" >"$T/hosts"
    orc --hostfile "$T/hosts" --oversubscribe -n 2 --display-map sh -c 'echo "$ORCA_RANK $ORCA_LOCAL_SIZE"'
    expect_status 0
    expect_sorted_stdout "0 2
1 2"
    expect_line err "orcarun: map of 2 ranks on 1 host (--map-by slot, oversubscribed):"
    expect_line err "  $HOST (1 slot, at most 2): ranks 0-1"
    orc --hostfile "$T/hosts" -n 2 true
    expect_failure
    expect_text err "-n 2 asks for more processes than the 1 slots of the 1 host(s)."
    orc --hostfile "$T/hosts" --oversubscribe -n 3 true
    expect_failure
    expect_text err "-n 3 asks for more processes than the 1 host(s) may run: even"
    expect_text err "oversubscribed, their max_slots allow 2 in all."
    orc --hostfile "$T/hosts" --oversubscribe -N 3 true
    expect_failure
    expect_text err "-N 3 puts 3 ranks on $HOST, whose hostfile line allows"
    printf '%s slots=3 max_slots=2\n' "$HOST" >"$T/hosts"
    orc --hostfile "$T/hosts" true
    expect_failure
    expect_text err "hostfile $T/hosts, line 1: max_slots=2 is below the host's 3 slots"
    expect_no_stdout
    done_case
}

# --- forwarded variables (-x, -genv, -genvlist) ----------------------------------

# A value with every kind of byte a shell or a wire format could mangle:
# blanks, both quotes, a backslash, '=', a newline (and one at the end),
# a tab, UTF-8 and a leading dash.
FORWARD_VALUE=$'-a b  "c" \'d\' \\e =f==\nsecond\tline é ✓\n'

# forward_daemon: $T/orcad, the daemon as ssh would start it, without
# orcarun's FWD_* variables (plm/local's daemons inherit orcarun's
# environment, so a variable could otherwise reach a rank unforwarded); it
# leaves $T/daemon-started behind, to tell whether any daemon started.
forward_daemon() {
    cat >"$T/orcad" <<SCRIPT
#!/bin/bash
: >"$T/daemon-started"
unset "\${!FWD_@}"
exec "$ORCAD" "\$@"
SCRIPT
    chmod +x "$T/orcad"
}

# expect_no_daemon: no daemon was started (a refusal came first).
expect_no_daemon() {
    [ ! -e "$T/daemon-started" ] || { show_output; fail "a daemon was started"; }
}

# expect_rank_files PREFIX RANKS EXPECTED: $T/PREFIX.R holds exactly the
# bytes of EXPECTED for every rank R below RANKS.
expect_rank_files() {
    local r
    for ((r = 0; r < $2; r++)); do
        printf '%s' "$3" | cmp -s - "$T/$1.$r" ||
            { show_output; od -c "$T/$1.$r" 2>&1 | head -20 >&2; fail "rank $r's $1 is not the value forwarded"; }
    done
}

# Values given on the command line reach every rank byte for byte, on both
# (simulated) nodes: -x NAME=VALUE, -genv NAME VALUE, an empty value, a
# later option for the same name winning. Orca's own variables win over a
# forwarded one.
forward_values_byte_exact() {
    setup
    forward_daemon
    orc --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 4 --oversubscribe \
        -x FWD_A=replaced -x "FWD_A=$FORWARD_VALUE" -genv FWD_B "$FORWARD_VALUE" -x FWD_E= \
        -x ORCA_RANK=99 -genv ORCA_SIZE 99 \
        sh -c 'printf %s "$FWD_A" >"$0/a.$ORCA_RANK"; printf %s "$FWD_B" >"$0/b.$ORCA_RANK"
               echo "$ORCA_RANK $ORCA_SIZE ${FWD_E-unset}."' "$T"
    expect_status 0
    expect_rank_files a 4 "$FORWARD_VALUE"
    expect_rank_files b 4 "$FORWARD_VALUE"
    expect_sorted_stdout "0 4 .
1 4 .
2 4 .
3 4 ."
    expect_no_stderr
    done_case
}

# Values taken from orcarun's environment: -x NAME, -x 'PREFIX*' and
# -genvlist; a variable not forwarded does not arrive (the daemon does not
# pass it on), and a PREFIX* that matches nothing is a warning only.
forward_from_the_environment() {
    setup
    forward_daemon
    status=0
    FWD_C=$FORWARD_VALUE FWD_P_1=one FWD_P_2="two 2" FWD_Q=q FWD_R=r FWD_OTHER=other ORCA_TEST_MARKER="$M" \
        run_orcarun "$T/out" "$T/err" --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 2 \
        -x FWD_C -x 'FWD_P_*' -x 'FWD_NONE_*' -genvlist FWD_Q,FWD_R \
        sh -c 'printf %s "$FWD_C" >"$0/c.$ORCA_RANK"
               echo "$FWD_P_1|$FWD_P_2|$FWD_Q|$FWD_R|${FWD_OTHER-unset}"' "$T" || status=$?
    expect_status 0
    expect_rank_files c 2 "$FORWARD_VALUE"
    expect_stdout "one|two 2|q|r|unset
one|two 2|q|r|unset"
    expect_line err "orcarun: warning: -x FWD_NONE_* forwards nothing: no variable of orcarun's environment has"
    [ "$(wc -l <"$T/err")" -eq 2 ] || { show_output; fail "more on stderr than the warning"; }
    done_case
}

# A name that orcarun's environment does not hold is refused before any
# daemon starts, naming it and both ways out.
forward_unset_name_refused() {
    setup
    forward_daemon
    unset FWD_UNSET  # the case runs in a subshell of its own
    orc --mca plm_base_daemon "$T/orcad" -genvlist HOME,FWD_UNSET true
    expect_status 1
    expect_line err "orcarun: -genvlist HOME,FWD_UNSET forwards FWD_UNSET from orcarun's environment, but FWD_UNSET is not set"
    expect_text err "(export FWD_UNSET=...),"
    expect_text err "-x FWD_UNSET=VALUE."
    expect_no_stdout
    expect_no_daemon
    done_case
}

# The bounds are the kernel's for a program's environment: one NAME=VALUE
# of 128 KiB with its NUL, and 1 MiB in all, arrive whole; a byte more of
# either is refused before any daemon starts, saying why and what to do.
forward_bounds() {
    setup
    forward_daemon
    local at_limit over part i
    at_limit=$(head -c $((131072 - 7)) /dev/zero | tr '\0' v)  # "FWD_B=" + value + NUL
    orc --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 2 -genv FWD_B "$at_limit" \
        sh -c 'echo ${#FWD_B}'
    expect_status 0
    expect_stdout "131065
131065"
    rm -f "$T/daemon-started"
    orc --mca plm_base_daemon "$T/orcad" -genv FWD_B "${at_limit}v" true
    expect_status 1
    expect_line err "orcarun: the variable FWD_B (-genv FWD_B ...) is 131073 bytes as NAME=VALUE, more than a"
    expect_text err "rank may be given (131072 bytes, 128 KiB, its terminating NUL counted);"
    expect_text err "Pass data"
    expect_no_daemon

    # Eight variables of 128 KiB fill 1 MiB: they reach every rank (and a
    # launch command that large gets through the oob).
    part=$(head -c $((131072 - 8)) /dev/zero | tr '\0' w)  # "FWD_Vn=" + value + NUL
    local -a eight=()
    for ((i = 0; i < 8; i++)); do eight+=(-genv "FWD_V$i" "$part"); done
    orc --mca plm_base_daemon "$T/orcad" --mca plm_local_num_nodes 2 -n 2 "${eight[@]}" \
        sh -c 'echo $((${#FWD_V0} + ${#FWD_V1} + ${#FWD_V2} + ${#FWD_V3} + ${#FWD_V4} + ${#FWD_V5} + ${#FWD_V6} + ${#FWD_V7}))'
    expect_status 0
    expect_stdout "$((8 * (131072 - 8)))
$((8 * (131072 - 8)))"
    rm -f "$T/daemon-started"
    orc --mca plm_base_daemon "$T/orcad" "${eight[@]}" -x FWD_X= true
    expect_status 1
    expect_line err "orcarun: the 9 variables orcarun would forward (-x, -genv, -genvlist) are"
    expect_text err "1048583 bytes in all, more than 1048576 bytes (1024 KiB); nothing was"
    expect_no_stdout
    expect_no_daemon
    done_case
}

# A launch command past the oob's message limit (lowered here; the default
# 64M holds the 1 MiB forwarding allows) ends the job at once, naming the
# limit, where before the job waited forever for ranks no daemon started.
forward_past_the_message_limit() {
    setup
    local big
    big=$(head -c 100000 /dev/zero | tr '\0' v)
    orc --mca oob_usock_max_msg_size 64k --mca oob_tcp_max_msg_size 64k --mca plm_local_num_nodes 2 -n 2 \
        -genv FWD_BIG "$big" true
    expect_status 1
    expect_match err '^orcarun: the command could not be sent to the daemons: a message of [0-9]+ bytes is larger than oob_(usock|tcp)_max_msg_size \(65536\)\. No rank was started$'
    expect_no_stdout
    done_case
}

# ---------------------------------------------------------------------------------
# 3. The routing tree: the output, and each daemon's parent in --report-routes

# routes_case ROUTED TREE_SPAWN: 8 simulated nodes, one rank each; every
# rank's line, and a route line per daemon whose parent is the tree's
# (radix 2: (v - 1) / 2, see components/routed/radix/radix_tree.cc;
# direct: orcarun) and whose connection goes to that parent's listener.
routes_case() {
    local routed=$1 spawn=$2 args
    setup
    if [ "$routed" = direct ]; then args=(--mca routed direct)
    else args=(--mca routed radix --mca routed_radix_radix 2); fi
    orc "${args[@]}" --mca plm_local_tree_spawn "$spawn" --mca plm_local_num_nodes 8 \
        -n 8 --oversubscribe --map-by node --report-routes sh -c 'echo "rank $ORCA_RANK node $ORCA_NODE"'
    expect_status 0
    local expected="" v parent to
    for ((v = 0; v < 8; v++)); do expected+="rank $v node $v"$'\n'; done
    expect_sorted_stdout "${expected%$'\n'}"
    local title="routes (8 daemons, routed/$routed, plm/local"
    [ "$spawn" = 0 ] || title+=", tree spawn"
    expect_line err "$title):"
    [ "$(grep -c '^  daemon ' "$T/err")" -eq 8 ] || { show_output; fail "expected 8 route lines"; }
    for ((v = 1; v <= 8; v++)); do
        if [ "$routed" = direct ]; then parent=0; else parent=$(((v - 1) / 2)); fi
        if [ "$parent" = 0 ]; then to=orcarun; else to="daemon $parent"; fi
        # The connection's far end is the parent's usock listener, @orca/JOB.PARENT/PID/...
        expect_match err "^  daemon $v on $HOST_RE#$v -> $to: usock: local -> @orca/[0-9]+\.$parent/[0-9]+/[0-9a-f]+\$"
    done
    done_case
}

routes_direct() { routes_case direct 0; }

routes_direct_tree_spawn() { routes_case direct 1; }

routes_radix() { routes_case radix 0; }

routes_radix_tree_spawn() { routes_case radix 1; }

# ---------------------------------------------------------------------------------
# 4. How ranks end, and what orcarun exits with

failed_rank_exit_status() {
    setup
    orc -n 4 --oversubscribe sh -c 'if [ "$ORCA_RANK" = 3 ]; then exit 7; fi; exec sleep 100'
    expect_status 7
    expect_line err "orcarun: rank 3 on $HOST exited with status 7; the job is ended and orcarun exits with its status."
    expect_line err "The command was: sh"
    # Only the rank that failed first is named, not the ones killed after.
    [ "$(grep -c '^orcarun: rank ' "$T/err")" -eq 1 ] || { show_output; fail "more than one rank named"; }
    expect_no_stdout
    done_case
}

missing_command_is_127() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --oversubscribe --map-by node no-such-command-orcarun-test
    expect_status 127
    # Both fail; whichever is reported first, its rank and host match.
    expect_match err "^orcarun: rank (0 on $HOST_RE#1|1 on $HOST_RE#2) could not be started: no-such-command-orcarun-test: No such file or directory\.\$"
    [ "$(grep -c '^orcarun: rank ' "$T/err")" -eq 1 ] || { show_output; fail "more than one rank named"; }
    expect_no_stdout
    done_case
}

rank_killed_by_signal() {
    setup
    orc -n 1 sh -c 'kill -USR1 $$'
    expect_status $((128 + 10))
    expect_match err "^orcarun: rank 0 on $HOST_RE was killed by signal 10 \(.*\); the job is ended and orcarun exits with its status\.\$"
    done_case
}

# ---------------------------------------------------------------------------------
# 5. Slots, a Slurm allocation, the topology

more_processes_than_slots() {
    setup
    orc -n $((CORES + 1)) true
    expect_failure
    expect_text err "-n $((CORES + 1)) asks for more processes than the $CORES slots of the 1 host(s)."
    expect_text err "--oversubscribe"
    orc --mca plm_local_num_nodes 3 -n $((3 * (CORES / 3 > 0 ? CORES / 3 : 1) + 1)) true
    expect_failure
    expect_text err "--oversubscribe"
    done_case
}

# Inside a Slurm allocation (the variables salloc and sbatch set; this
# host, named localhost, as its one node of 3 tasks) and with no host
# named, plm/slurm starts the daemons with srun (which finds no Slurm
# here, or is not installed: orcarun says so); with plm/slurm left out,
# ras/slurm gives the job its nodes and slots: 3 ranks without -n.
# --host still chooses (ras/hostfile), and `--mca ras ^slurm` leaves the
# allocation out; a malformed variable is an error quoting it.
slurm_allocation_gives_the_nodes() {
    setup
    # An allocation of this host alone, as salloc's variables say, without
    # a Slurm: plm/slurm's srun finds no controller, and orcarun quotes it.
    SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE=3 orc true
    expect_failure
    expect_text err "plm/slurm"
    expect_text err "srun"
    expect_text err "--mca plm rsh"
    # The rest is about the nodes (ras/slurm): the daemons start here.
    # Assignments before a function call reach the commands it runs.
    in_allocation() { SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost SLURM_TASKS_PER_NODE=3 orc --mca plm ^slurm "$@"; }
    in_allocation sh -c 'echo "rank $ORCA_RANK of $ORCA_SIZE"'
    expect_status 0
    expect_sorted_stdout "rank 0 of 3
rank 1 of 3
rank 2 of 3"
    in_allocation --host localhost:1 sh -c 'echo "of $ORCA_SIZE"'
    expect_status 0
    expect_stdout "of 1"
    in_allocation --mca ras ^slurm -n 1 sh -c 'echo "of $ORCA_SIZE"'
    expect_status 0
    expect_stdout "of 1"
    SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='node[1-' SLURM_TASKS_PER_NODE=3 orc true
    expect_failure
    expect_text err "SLURM_JOB_NODELIST=node[1-"
    SLURM_JOB_ID=4242 SLURM_JOB_NODELIST=localhost orc true
    expect_failure
    expect_text err "SLURM_TASKS_PER_NODE"
    done_case
}

# --report-topology: every daemon's hwloc summary, before the command runs.
report_topology() {
    setup
    orc --mca plm_local_num_nodes 2 -n 2 --report-topology true
    expect_status 0
    local h
    h=$(hostname)
    expect_line err "topology of $h#1 (daemon 1):"
    expect_line err "topology of $h#2 (daemon 2):"
    expect_match err '^  [0-9]+ packages?, [0-9]+ cores?, [0-9]+ PUs?, [0-9]+ NUMA nodes?$'
    done_case
}

CASES=(hostname_twice one_rank_per_slot_by_default ranks_start_in_the_working_directory
       rank_environment_by_slot rank_environment_by_node rank_environment_per_node ranks_renumbered_by_rank_by
       max_slots_caps_a_host forward_values_byte_exact
       forward_from_the_environment forward_unset_name_refused forward_bounds forward_past_the_message_limit
       routes_direct routes_direct_tree_spawn routes_radix routes_radix_tree_spawn failed_rank_exit_status
       missing_command_is_127 rank_killed_by_signal more_processes_than_slots report_topology
       slurm_allocation_gives_the_nodes)

# Arguments, if any, name the cases to run (by hand: bash orcarun_mapping_test.sh CASE...).
run_orcarun_suite "$@"

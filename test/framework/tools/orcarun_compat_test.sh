#!/bin/bash
# orcarun end to end with plm/local (test/lib/orcarun_local.sh): command
# lines as users write them for the launchers they come from, each copied
# in form from Open MPI's mpirun(1), MPICH Hydra's mpiexec(1) or the ones
# horovodrun builds (horovod/runner/mpi_run.py, for Open MPI and for MPICH
# and Intel MPI). Each row runs and prints what it must, or fails with the
# message orcarun(1) says for it and prints nothing on stdout. Hosts are
# this host's name: plm/local runs the daemons here.
. "$(dirname "$0")/../../lib/orcarun_local.sh"

# row WHAT EXPECT STDOUT ARGS...: orcarun ARGS. EXPECT "ok": status 0 and,
# unless STDOUT is "-", stdout's lines sorted are STDOUT's sorted; else
# EXPECT is text stderr must hold, orcarun fails and prints no stdout.
row() {
    local what=$1 expect=$2 stdout=$3; shift 3
    orc "$@"
    if [ "$expect" = ok ]; then
        [ "$status" -eq 0 ] || { show_output; fail "$what: exited with $status: orcarun $*"; }
        if [ "$stdout" != - ] && [ "$(sort "$T/out")" != "$(sort <<<"$stdout")" ]; then
            show_output
            fail "$what: stdout is not:
$stdout"
        fi
    else
        if [ "$status" -eq 0 ] || [ "$status" -ge 124 ]; then
            show_output
            fail "$what: expected orcarun to fail, got $status: orcarun $*"
        fi
        grep -qF -- "$expect" "$T/err" || { show_output; fail "$what: stderr does not say: $expect"; }
        [ ! -s "$T/out" ] || { show_output; fail "$what: a rank printed although orcarun refused the line"; }
    fi
}

# Open MPI 4.1's mpirun(1): its examples and the options its users type.
open_mpi_command_lines() {
    setup
    printf '%s slots=2\n' "$HOST" >"$T/hostfile"
    printf '%s\n' "-np 1 echo first" "-np 1 echo second" >"$T/appfile"
    row "-np and -H host:slots" ok "$HOST
$HOST" -np 2 -H "$HOST:2" hostname
    row "--hostfile with slots=" ok "$HOST
$HOST" --hostfile "$T/hostfile" -np 2 hostname
    printf '%s slots=2 max_slots=3\n' "$HOST" >"$T/capped"
    row "max_slots= caps oversubscription" ok "$HOST
$HOST
$HOST" --hostfile "$T/capped" --oversubscribe -np 3 hostname
    row "max_slots= exceeded" "their max_slots allow 3 in all" - --hostfile "$T/capped" --oversubscribe -np 4 true
    row "--map-by node" ok "0
1" --host "$HOST:2" --map-by node -np 2 sh -c 'echo $ORCA_RANK'
    row "-N (ranks per node)" ok "0
1" -N 2 --host "$HOST:2" sh -c 'echo $ORCA_RANK'
    row "--npernode" ok "0" --npernode 1 --host "$HOST" sh -c 'echo $ORCA_RANK'
    row "--map-by ppr:2:node" ok "0
1" --map-by ppr:2:node --host "$HOST:2" sh -c 'echo $ORCA_RANK'
    row "--map-by core --bind-to core --report-bindings" ok - --map-by core --bind-to core --report-bindings -np 1 true
    expect_match err "^orcarun: rank 0 on $HOST_RE \(daemon 1\): bound to core 0 "
    row "--bind-to none" ok "x" --bind-to none -np 1 echo x
    row "--display-map" ok - --display-map -np 1 true
    expect_line err "orcarun: map of 1 rank on 1 host (--map-by slot):"
    row "Open MPI's own --mca settings reach the ranks" ok "^openib ob1" --mca btl ^openib -mca pml ob1 -np 1 \
        sh -c 'echo "$OMPI_MCA_btl $OMPI_MCA_pml"'
    row "-x NAME=VALUE and -x NAME" ok "bar $HOME" -x FOO=bar -x HOME -np 1 sh -c 'echo "$FOO $HOME"'
    row "--wdir" ok "/" --wdir / -np 1 pwd
    row "--output-filename" ok "" --output-filename "$T/files" -np 1 echo kept
    [ "$(cat "$T/files/rank.0/stdout")" = kept ] || fail "--output-filename: rank 0's file does not hold its line"
    row "--tag-output" ok "[0] x" --tag-output -np 1 echo x
    row "--timestamp-output" ok - --timestamp-output -np 1 echo x
    expect_match out '^\[[0-9:.]{12}\] x$'
    row "--merge-stderr-to-stdout" ok "e" --merge-stderr-to-stdout -np 1 sh -c 'echo e >&2'
    row "MPMD with ':'" ok "a
b" --oversubscribe -np 1 echo a : -np 1 echo b
    row "--app FILE" ok "first
second" --oversubscribe --app "$T/appfile"
    row "--oversubscribe" ok "x
x
x" --oversubscribe -np 3 --host "$HOST:1" echo x
    row "--allow-run-as-root" ok "x" --allow-run-as-root -np 1 echo x
    row "Open MPI 5's --output" ok "[$HOST:0] x" --output tag-detailed -np 1 echo x
    row "--rank-by" ok "0 node 0
1 node 1
2 node 0
3 node 1" --mca plm_local_num_nodes 2 -N 2 --rank-by node -np 4 sh -c 'echo "$ORCA_RANK node $ORCA_NODE"'
    row "--rank-by a resource" "orcarun ranks by slot or node" - --rank-by core -np 1 true
    row "--cpu-set (not yet)" "orcarun does not have this option of mpirun and mpiexec yet" - --cpu-set 0 -np 1 true
    row "ppr over another resource" ok "x" --map-by ppr:1:socket -np 1 echo x
    row "too many ranks" "-n 3 asks for more processes than the 2 slots" - --host "$HOST:2" -np 3 true
    done_case
}

# MPICH 4's mpiexec.hydra(1): its global and local options.
hydra_command_lines() {
    setup
    printf '%s:2\n' "$HOST" >"$T/hostfile"
    printf '%s\n' "-n 1 echo first" "-n 1 echo second" >"$T/configfile"
    row "-n and -hosts host:N" ok "$HOST
$HOST" -n 2 -hosts "$HOST:2" hostname
    row "-f hostfile of host:N" ok "$HOST
$HOST" -f "$T/hostfile" -n 2 hostname
    row "-ppn with -hosts" ok "0
1" -ppn 2 -n 2 -hosts "$HOST" sh -c 'echo $ORCA_RANK'
    row "-genv" ok "bar" -genv FOO bar -n 1 sh -c 'echo $FOO'
    row "-genvlist" ok "$HOME" -genvlist HOME,PATH -n 1 sh -c 'echo $HOME'
    row "-l" ok "[0] x
[1] x" -l -n 2 -hosts "$HOST:2" echo x
    row "-prepend-rank" ok "[0] x" -prepend-rank -n 1 echo x
    row "-bind-to core -map-by core" ok "x" -bind-to core -map-by core -n 1 echo x
    row "-wdir" ok "/" -wdir / -n 1 pwd
    row "-configfile" ok "first
second" --oversubscribe -configfile "$T/configfile"
    row "-env for one program" ok "a
none" --oversubscribe -n 1 -env FOO a sh -c 'echo ${FOO-none}' : -n 1 sh -c 'echo ${FOO-none}'
    row "-bind-to beyond the node" "cannot hold its 3 ranks at 1 of its cores each" - \
        -bind-to core -n 3 -hosts "$HOST:3" true
    done_case
}

# The command lines horovodrun builds (horovod/runner/mpi_run.py): for
# Open MPI, and for MPICH and Intel MPI (-l, -hosts, -ppn, -genvlist).
horovod_command_lines() {
    setup
    row "horovodrun, Open MPI" ok "[0] INFO ob1
[1] INFO ob1" --allow-run-as-root --tag-output -np 2 -H "$HOST:2" -bind-to none -map-by slot -mca pml ob1 \
        -mca btl ^openib -x NCCL_DEBUG=INFO -x HOME -x PATH sh -c 'echo "$NCCL_DEBUG $OMPI_MCA_pml"'
    NCCL_DEBUG=INFO row "horovodrun, MPICH / Intel MPI" ok "[0] INFO
[1] INFO" -l -np 2 -hosts "$HOST" -ppn 2 -genvlist NCCL_DEBUG,PATH sh -c 'echo $NCCL_DEBUG'
    row "horovodrun --ssh-port (plm_rsh_args)" ok "x" -mca plm_rsh_args "-p 2222" -np 1 echo x
    done_case
}

CASES=(open_mpi_command_lines hydra_command_lines horovod_command_lines)

# Arguments, if any, name the cases to run (by hand: bash orcarun_compat_test.sh CASE...).
run_orcarun_suite "$@"

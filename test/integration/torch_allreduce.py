# A torch.distributed program written for torchrun, unchanged: gloo,
# init_process_group from env:// (RANK, WORLD_SIZE, MASTER_ADDR,
# MASTER_PORT), one all_reduce. Prints
# "rank R/N sum=S local=L/LS node=G master=A:P host=H".
import datetime
import os
import socket

import torch
import torch.distributed as dist

dist.init_process_group("gloo", init_method="env://", timeout=datetime.timedelta(seconds=40))
rank, size = dist.get_rank(), dist.get_world_size()
t = torch.tensor([float(rank + 1)])
dist.all_reduce(t)
print(f"rank {rank}/{size} sum={int(t.item())} local={os.environ['LOCAL_RANK']}/{os.environ['LOCAL_WORLD_SIZE']}"
      f" node={os.environ['GROUP_RANK']} master={os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}"
      f" host={socket.gethostname()}", flush=True)
dist.barrier()
dist.destroy_process_group()

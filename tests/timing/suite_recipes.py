#!/usr/bin/env python3
"""The launches of suite_launches.cu, in the same order, as `smemlab analyze`
recipes (kernel mode: the kernels' PTX, the default sample of 64 blocks
scaled to the grid), printing one JSON object per launch with its index as
`launch` -- the predictions scripts/timing-compare.py reads. Kernel mode
samples, so this is cheap where program mode (`analyze -- suite_launches`)
emulates every block. Keep the table in step with suite_launches.cu.

usage: suite_recipes.py SMEMLAB PTX_DIR > suite.jsonl"""
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor

N = 4096
RN = 1 << 24
TB = 132 * 64
MN = 1024

def fl(n, fill='random(1)'):
    return f'float[{n}]={fill}'

def configs():
    c = []
    tr = [('copy', 'transposeCopy', 32, 8, 32), ('copy-shared', 'transposeCopyShared', 32, 8, 32),
          ('naive', 'transposeNaive', 32, 8, 32), ('coalesced', 'transposeCoalesced', 32, 8, 32),
          ('padded', 'transposePadded', 32, 8, 32), ('swizzled', 'transposeSwizzled', 32, 8, 32),
          ('padded-r4', 'transposePaddedRows4', 32, 4, 32), ('padded-r16', 'transposePaddedRows16', 32, 16, 32),
          ('swizzled-r4', 'transposeSwizzledRows4', 32, 4, 32), ('vec4', 'transposeVec4', 8, 32, 32),
          ('vec4-t64', 'transposeVec4Tile64', 16, 16, 64), ('vec4-t64r32', 'transposeVec4Tile64R32', 16, 32, 64),
          ('vec4-t64r8', 'transposeVec4Tile64R8', 16, 8, 64)]
    for name, k, bx, by, tile in tr:
        c.append((f'transpose/{name}', 'transpose', k, f'{N//tile},{N//tile}', f'{bx},{by}', 0,
                  [fl(N * N), fl(N * N, 'zeros'), f'int={N}', f'int={N}']))
    ti = [('setRowReadRow', False, False, -1), ('setColReadCol', False, False, -1),
          ('setRowReadCol', False, False, -1), ('setRowReadColDyn', False, False, 0),
          ('setRowReadColPad', False, False, -1), ('setRowReadColPad2', False, False, -1),
          ('setRowReadColDynPad', False, False, 1), ('setRowReadColRect', True, False, -1),
          ('setRowReadColRectPad', True, False, -1), ('setRowReadColRectDyn', True, False, 0),
          ('setRowReadColRectDynPad', True, False, 2), ('setRowReadRow8', False, True, -1),
          ('setRowReadCol8', False, True, -1), ('setRowReadColPad8', False, True, -1)]
    for k, rect, wide, pad in ti:
        by = 16 if rect else 32
        elem = 8 if wide else 4
        smem = 0 if pad < 0 else by * (32 + pad) * elem
        t = 'long' if wide else 'int'
        c.append((f'tiles/{k}', 'tiles', k, f'{TB}', f'32,{by}', smem, [f'{t}[{TB * 1024}]=zeros']))
    mm = [fl(MN * MN), fl(MN * MN, 'random(2)'), fl(MN * MN, 'zeros'), f'int={MN}', f'int={MN}', f'int={MN}']
    c.append(('matmul/naive', 'matmul', 'matmul_naive', f'{MN//32},{MN//8}', '32,8', 0, mm))
    c.append(('matmul/tiled16', 'matmul', 'matmul_tiled16', f'{MN//16},{MN//16}', '16,16', 0, mm))
    c.append(('matmul/tiled32', 'matmul', 'matmul_tiled32', f'{MN//32},{MN//32}', '32,32', 0, mm))
    c.append(('matmul/sgemm-128x128x8', 'matmul', 'sgemm_128x128x8_vec', f'{MN//128},{MN//128}', '256', 0, mm))
    red = [('reduction/interleaved-divergent', 'reduction', 'reduce_interleaved_divergent', 1),
           ('reduction/interleaved-strided', 'reduction', 'reduce_interleaved_strided', 1),
           ('reduction/sequential', 'reduction', 'reduce_sequential', 1),
           ('reduction/first-add', 'reduction', 'reduce_first_add', 2),
           ('reduction/unrolled-warp', 'reduction', 'reduce_unrolled_warp', 2),
           ('reduction/shuffle', 'reduction', 'reduce_shuffle', 2),
           ('filter/one-per-thread', 'filter', 'fir_one_per_thread', 1),
           ('filter/two-per-thread', 'filter', 'fir_two_per_thread', 2),
           ('filter/best', 'filter', 'fir_best', 4)]
    for name, f, k, per in red:
        c.append((name, f, k, f'{RN // (256 * per)}', '256', 0, [fl(RN), fl(RN, 'zeros'), f'int={RN}']))
    ints = [f'int[{RN}]=random(1)', f'int[{RN}]=zeros', f'long={RN}']
    c.append(('reverse/blocks-shared', 'reverse', 'reverseBlocksShared', f'{RN // 1024}', '256', 0, ints))
    c.append(('reverse/vec4', 'reverse', 'reverseVec4', f'{132 * 8 * 4}', '256', 0, ints))
    for kib in (1, 4, 16, 48):
        floats = kib * 256
        c.append((f'config/chunk-{kib}KiB', 'config', 'smemChunkReverse', f'{132 * 8}', '256', floats * 4,
                  [fl(RN), fl(RN, 'zeros'), f'long={RN}', f'int={floats}']))
    for s in (1, 8, 32):
        c.append((f'demos/stride-{s}', 'demos', 'strideRead', f'{132 * 16}', '256', 0,
                  [f'uint[{RN}]=random(1)', f'uint[{RN // s}]=zeros', f'long={RN // s}', f'int={s}']))
    for k in ('divergenceMod3', 'divergenceByWarp'):
        label = 'demos/divergence-mod3' if k == 'divergenceMod3' else 'demos/divergence-by-warp'
        c.append((label, 'demos', k, f'{RN // 256 // 4}', '256', 0, [f'uint[{RN // 4}]=zeros', f'int={RN // 4}', 'int=64']))
    return c

def run(args):
    i, (label, f, k, grid, block, smem, a), smemlab, ptx = args
    cmd = [smemlab, 'analyze', f'{ptx}/{f}.ptx', '--kernel', k, '--grid', grid, '--block', block, '--json']
    if smem:
        cmd += ['--shared', str(smem)]
    for x in a:
        cmd += ['--arg', x]
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        j = json.loads(p.stdout)
    except json.JSONDecodeError:
        return {'launch': i, 'label': label, 'error': (p.stderr or p.stdout)[-500:]}
    j['launch'] = i
    j['label'] = label
    return j

def main():
    smemlab, ptx = sys.argv[1], sys.argv[2]
    cs = configs()
    # SMEMLAB_JOBS: analyses at once (2: the development machine's cores).
    with ThreadPoolExecutor(max_workers=int(os.environ.get('SMEMLAB_JOBS', '2'))) as ex:
        for j in ex.map(run, [(i, c, smemlab, ptx) for i, c in enumerate(cs)]):
            print(json.dumps(j), flush=True)

if __name__ == '__main__':
    main()

// The external functions CUDA's device runtime provides, built in at decode
// time (a `call` of a body-less `.extern .func` becomes one BUILTIN op):
// vprintf (printf), __assertfail (assert), malloc and free (also new and
// delete), cudaGraphSetConditional, and CDP2's device runtime (launches,
// streams, events, error texts, device queries, the last error:
// device_runtime.h). Anything else external is a
// decode error naming the function.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string_view>

#include "emu/decode_context.h"
#include "emu/device_runtime.h"
#include "emu/exec.h"

namespace smemlab::emu {
namespace {

struct BuiltinFn {
  const char* name;
  Builtin kind;
  size_t params, retvals;
};
constexpr BuiltinFn kBuiltins[] = {
    {"vprintf", B_VPRINTF, 2, 1},
    {"__assertfail", B_ASSERTFAIL, 5, 0},
    {"malloc", B_MALLOC, 1, 1},
    {"free", B_FREE, 1, 0},
    {"cudaGraphSetConditional", B_SET_CONDITIONAL, 2, 0},
    // CDP2's device runtime (device_runtime.h); the _ptsz
    // forms (per-thread default stream) behave alike.
    {"__cudaCDP2GetParameterBufferV2", B_CDP_PARAMETER_BUFFER, 4, 1},
    {"__cudaCDP2LaunchDeviceV2", B_CDP_LAUNCH, 2, 1},
    {"__cudaCDP2LaunchDeviceV2_ptsz", B_CDP_LAUNCH, 2, 1},
    {"__cudaCDP2StreamCreateWithFlags", B_CDP_STREAM_CREATE, 2, 1},
    {"__cudaCDP2StreamDestroy", B_CDP_STREAM_DESTROY, 1, 1},
    {"__cudaCDP2GetLastError", B_CDP_GET_LAST_ERROR, 0, 1},
    {"__cudaCDP2PeekAtLastError", B_CDP_PEEK_LAST_ERROR, 0, 1},
    {"__cudaCDP2Malloc", B_CDP_MALLOC, 2, 1},
    {"__cudaCDP2Free", B_CDP_FREE, 1, 1},
    {"__cudaCDP2MemcpyAsync", B_CDP_MEMCPY_ASYNC, 5, 1},
    {"__cudaCDP2MemcpyAsync_ptsz", B_CDP_MEMCPY_ASYNC, 5, 1},
    {"__cudaCDP2MemsetAsync", B_CDP_MEMSET_ASYNC, 4, 1},
    {"__cudaCDP2MemsetAsync_ptsz", B_CDP_MEMSET_ASYNC, 4, 1},
    {"__cudaCDP2GetErrorName", B_CDP_ERROR_NAME, 1, 1},
    {"__cudaCDP2GetErrorString", B_CDP_ERROR_STRING, 1, 1},
    {"__cudaCDP2GetDevice", B_CDP_GET_DEVICE, 1, 1},
    {"__cudaCDP2GetDeviceCount", B_CDP_GET_DEVICE_COUNT, 1, 1},
    {"__cudaCDP2DeviceGetAttribute", B_CDP_DEVICE_ATTRIBUTE, 3, 1},
    {"__cudaCDP2EventCreateWithFlags", B_CDP_EVENT_CREATE, 2, 1},
    {"__cudaCDP2EventRecord", B_CDP_EVENT_RECORD, 2, 1},
    {"__cudaCDP2EventRecord_ptsz", B_CDP_EVENT_RECORD, 2, 1},
    {"__cudaCDP2EventRecordWithFlags", B_CDP_EVENT_RECORD, 3, 1},
    {"__cudaCDP2EventRecordWithFlags_ptsz", B_CDP_EVENT_RECORD, 3, 1},
    {"__cudaCDP2EventDestroy", B_CDP_EVENT_DESTROY, 1, 1},
    {"__cudaCDP2StreamWaitEvent", B_CDP_STREAM_WAIT_EVENT, 3, 1},
    {"__cudaCDP2StreamWaitEvent_ptsz", B_CDP_STREAM_WAIT_EVENT, 3, 1}};

// The device runtime's calls the emulator does not provide: CDP1's (a
// kernel built for a GPU before sm_90 with CUDA_FORCE_CDP1_IF_SUPPORTED),
// and CDP2's others; each a decode error naming the call.
std::string dynamic_parallelism_refusal(std::string_view n) {
  if (n == "cudaDeviceSynchronize" || n.find("DeviceSynchronize") != std::string_view::npos)
    return fmt::format(
        "'{}': a kernel waiting for its child grids (device-side cudaDeviceSynchronize) is CDP1, "
        "which CUDA 12 removed and sm_90 never had; CDP2 has no parent-side join (use "
        "cudaStreamTailLaunch for work after the children)",
        n);
  if (n.rfind("__cudaCDP2", 0) == 0)
    return fmt::format("device runtime call '{}' (dynamic parallelism) is not supported", n);
  if (n.rfind("cudaLaunchDevice", 0) == 0 || n.rfind("cudaGetParameterBuffer", 0) == 0 ||
      n == "cudaCGGetIntrinsicHandle" || n.rfind("cudaCGSynchronize", 0) == 0 ||
      n.rfind("cudaStreamCreateWithFlags", 0) == 0)
    return fmt::format(
        "device runtime call '{}' is CDP1's (dynamic parallelism before CUDA 12), which is not "
        "supported: rebuild for sm_90 (CDP2)",
        n);
  return "";
}

uint32_t frame_u32(const uint8_t* frame, uint32_t off) {
  uint32_t v = 0;
  std::memcpy(&v, frame + off, 4);
  return v;
}

Dim3 frame_dim3(const uint8_t* frame, uint32_t off) {
  Dim3 d;
  std::memcpy(&d.x, frame + off, 4);
  std::memcpy(&d.y, frame + off + 4, 4);
  std::memcpy(&d.z, frame + off + 8, 4);
  return d;
}

constexpr uint32_t kMaxString = 1 << 16;

uint64_t frame_u64(const uint8_t* frame, uint32_t off, uint32_t bytes) {
  uint64_t v = 0;
  std::memcpy(&v, frame + off, bytes);
  return v;
}

std::string read_string(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane,
                        uint64_t addr) {
  std::string s;
  if (addr == 0) return "(null)";
  for (uint32_t i = 0; i < kMaxString; ++i) {
    char c = static_cast<char>(*read_generic(b, w, op, pc, lane, addr + i, 1));
    if (c == 0) return s;
    s += c;
  }
  fault(w, pc, static_cast<int>(lane), FaultKind::Printf,
        fmt::format("string at 0x{:x} has no terminating NUL in {} bytes", addr, kMaxString));
}

// CUDA's printf: the arguments are packed into a buffer, each aligned to
// its size after the default promotions (float -> double, char/short ->
// int); %s and %p take 8-byte generic pointers. Returns the number of
// arguments, as vprintf does.
int format_printf(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t lane,
                  const std::string& f, uint64_t args, std::string* out) {
  uint64_t off = 0;
  int n = 0;
  auto take = [&](uint32_t size) {
    off = (off + size - 1) & ~uint64_t{size - 1};
    uint64_t v = 0;
    std::memcpy(&v, read_generic(b, w, op, pc, lane, args + off, size), size);
    off += size;
    ++n;
    return v;
  };
  for (size_t i = 0; i < f.size(); ++i) {
    if (f[i] != '%') {
      *out += f[i];
      continue;
    }
    size_t start = i++;
    if (i < f.size() && f[i] == '%') {
      *out += '%';
      continue;
    }
    std::string spec = "%";
    int star[2] = {0, 0}, nstar = 0;
    while (i < f.size() && std::strchr("-+ #0", f[i])) spec += f[i++];
    auto digits_or_star = [&]() {
      if (i < f.size() && f[i] == '*') {
        star[nstar++] = static_cast<int>(static_cast<int32_t>(take(4)));
        spec += '*';
        ++i;
      }
      while (i < f.size() && f[i] >= '0' && f[i] <= '9') spec += f[i++];
    };
    digits_or_star();
    if (i < f.size() && f[i] == '.') {
      spec += f[i++];
      digits_or_star();
    }
    int longs = 0;
    std::string len;
    while (i < f.size() && std::strchr("hlLqjzt", f[i])) {
      if (f[i] == 'l' || f[i] == 'L' || f[i] == 'q' || f[i] == 'j' || f[i] == 'z' || f[i] == 't')
        ++longs;
      len += f[i++];
    }
    if (i >= f.size()) {  // a lone '%' at the end: printed as is
      *out += f.substr(start);
      break;
    }
    char conv = f[i];
    std::string piece;
    auto emit = [&](auto value, const std::string& mods) {
      std::string s = spec + mods + conv;
      int len2 = nstar == 2   ? std::snprintf(nullptr, 0, s.c_str(), star[0], star[1], value)
                 : nstar == 1 ? std::snprintf(nullptr, 0, s.c_str(), star[0], value)
                              : std::snprintf(nullptr, 0, s.c_str(), value);
      if (len2 < 0) return;
      std::string buf(static_cast<size_t>(len2) + 1, '\0');
      if (nstar == 2)
        std::snprintf(buf.data(), buf.size(), s.c_str(), star[0], star[1], value);
      else if (nstar == 1)
        std::snprintf(buf.data(), buf.size(), s.c_str(), star[0], value);
      else
        std::snprintf(buf.data(), buf.size(), s.c_str(), value);
      buf.pop_back();
      *out += buf;
    };
    switch (conv) {
      case 'd':
      case 'i':
        if (longs)
          emit(static_cast<long long>(take(8)), "ll");
        else
          emit(static_cast<int>(static_cast<int32_t>(take(4))), len);
        break;
      case 'u':
      case 'x':
      case 'X':
      case 'o':
        if (longs)
          emit(static_cast<unsigned long long>(take(8)), "ll");
        else
          emit(static_cast<unsigned>(take(4)), len);
        break;
      case 'c':
        emit(static_cast<int>(static_cast<int32_t>(take(4))), "");
        break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        uint64_t bits = take(8);
        double d;
        std::memcpy(&d, &bits, 8);
        emit(d, "");
        break;
      }
      case 's': {
        std::string s = read_string(b, w, op, pc, lane, take(8));
        emit(s.c_str(), "");
        break;
      }
      case 'p':
        emit(reinterpret_cast<void*>(static_cast<uintptr_t>(take(8))), "");
        break;
      default:  // not a conversion CUDA knows: printed as written
        *out += f.substr(start, i - start + 1);
    }
  }
  return n;
}

}  // namespace

bool decode_builtin(DecodeContext& c, const ptx::Instruction& in, const ptx::Function& callee,
                    const std::vector<uint32_t>& params, const std::vector<uint32_t>& retvals) {
  for (const BuiltinFn& f : kBuiltins) {
    if (callee.name != f.name) continue;
    if (params.size() != f.params || retvals.size() != f.retvals)
      c.fail(in.pos, fmt::format("call of built-in '{}' with {} arguments and {} return values",
                                 f.name, params.size(), retvals.size()));
    Op op = c.make(in);
    op.code = code(BUILTIN, U64);
    op.aux = f.kind;
    for (size_t i = 0; i < params.size(); ++i) op.r[i] = params[i];
    op.r[5] = retvals.empty() ? UINT32_MAX : retvals[0];
    // In a function called for real the .param slots are in its activation
    // record: imm - 1 is the register holding the record's address.
    if (c.cur_callee >= 0) op.imm = int64_t{c.frame_reg(0)} + 1;
    c.push(op);
    return true;
  }
  if (std::string why = dynamic_parallelism_refusal(callee.name); !why.empty()) c.fail(in.pos, why);
  return false;
}

namespace {

// Device-side cudaMemcpyAsync/cudaMemsetAsync, done at the call: the order
// CDP2 allows while the stream holds none of the block's launches yet (a
// stream is ordered only with the block's own work in it); after one, the
// copy would have to wait for a child grid that runs after this grid.
uint32_t stream_memory_op(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l,
                          uint8_t* frame, DeviceRuntime& rt, uint64_t block_linear) {
  const bool copy = op.aux == B_CDP_MEMCPY_ASYNC;
  const uint64_t dst = frame_u64(frame, op.r[0], 8);
  const uint64_t count = frame_u64(frame, op.r[2], 8);
  const uint64_t stream = frame_u64(frame, op.r[copy ? 4 : 3], 8);
  const char* name = copy ? "cudaMemcpyAsync" : "cudaMemsetAsync";
  if (!rt.known_stream(stream)) return kCudaErrorInvalidResourceHandle;
  if (rt.launched_into(block_linear, stream))
    fault(w, pc, static_cast<int>(l), FaultKind::Unsupported,
          fmt::format("device-side {} into a stream that already holds a launch of this block is "
                      "not supported (the emulator runs child grids after their parent)",
                      name));
  if (count == 0) return kCudaSuccess;
  if (count > (uint64_t{1} << 31))
    fault(w, pc, static_cast<int>(l), FaultKind::Unsupported,
          fmt::format("device-side {} of {} bytes (more than 2 GiB)", name, count));
  const uint32_t n = static_cast<uint32_t>(count);
  uint8_t* d = read_generic(b, w, op, pc, l, dst, n);
  if (copy)
    std::memmove(d, read_generic(b, w, op, pc, l, frame_u64(frame, op.r[1], 8), n), n);
  else
    std::memset(d, static_cast<int>(frame_u64(frame, op.r[1], 4) & 0xff), n);
  return kCudaSuccess;
}

// The device runtime's queries and events of lane `l`: error names and
// texts (a string the device heap keeps for the program's life), the
// device, its attributes, events and waits on them.
void exec_device_queries(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l,
                         uint8_t* frame, DeviceRuntime& rt, uint64_t thread) {
  auto ret32 = [&](uint32_t v) {
    v = rt.result(thread, v);
    std::memcpy(frame + op.r[5], &v, 4);
  };
  auto store32 = [&](uint64_t addr, int32_t v) {
    std::memcpy(read_generic(b, w, op, pc, l, addr, 4), &v, 4);
  };
  switch (op.aux) {
    case B_CDP_ERROR_NAME:
    case B_CDP_ERROR_STRING: {
      uint32_t code = static_cast<uint32_t>(frame_u64(frame, op.r[0], 4));
      uint64_t s = b.env->heap->intern(op.aux == B_CDP_ERROR_NAME ? cuda_error_name(code)
                                                                  : cuda_error_string(code));
      std::memcpy(frame + op.r[5], &s, 8);
      break;
    }
    case B_CDP_GET_DEVICE:
    case B_CDP_GET_DEVICE_COUNT:  // one device: 0 is the device, 1 the count
      store32(frame_u64(frame, op.r[0], 8), op.aux == B_CDP_GET_DEVICE ? 0 : 1);
      ret32(kCudaSuccess);
      break;
    case B_CDP_DEVICE_ATTRIBUTE: {
      int32_t v = 0;
      uint32_t e = rt.device_attribute(static_cast<uint32_t>(frame_u64(frame, op.r[1], 4)), &v);
      if (e == kCudaSuccess) store32(frame_u64(frame, op.r[0], 8), v);
      ret32(e);
      break;
    }
    case B_CDP_EVENT_CREATE: {
      uint64_t handle = 0;
      uint32_t e = rt.event_create(&handle, static_cast<uint32_t>(frame_u64(frame, op.r[1], 4)));
      if (e == kCudaSuccess)
        std::memcpy(read_generic(b, w, op, pc, l, frame_u64(frame, op.r[0], 8), 8), &handle, 8);
      ret32(e);
      break;
    }
    case B_CDP_EVENT_RECORD:
      ret32(rt.known_event(frame_u64(frame, op.r[0], 8)) &&
                    rt.known_stream(frame_u64(frame, op.r[1], 8))
                ? kCudaSuccess
                : kCudaErrorInvalidResourceHandle);
      break;
    case B_CDP_EVENT_DESTROY:
      ret32(rt.event_destroy(frame_u64(frame, op.r[0], 8)));
      break;
    case B_CDP_STREAM_WAIT_EVENT:  // met: the block's work runs in its issue order
      ret32(rt.known_stream(frame_u64(frame, op.r[0], 8)) &&
                    rt.known_event(frame_u64(frame, op.r[1], 8))
                ? kCudaSuccess
                : kCudaErrorInvalidResourceHandle);
      break;
    default:
      break;
  }
}

// The CDP2 calls of lane `l` (device_runtime.h); `frame` holds its .param slots.
void exec_device_runtime(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t l,
                         uint8_t* frame) {
  DeviceRuntime& rt = *b.env->device_runtime;
  const Dim3 g = b.env->grid, bd = b.env->block;
  const uint32_t t = w.index * 32 + l;  // the thread's linear index in its block
  const Dim3 tid{t % bd.x, t / bd.x % bd.y, t / (bd.x * bd.y)};
  const uint64_t block_linear = b.id.x + uint64_t{g.x} * (b.id.y + uint64_t{g.y} * b.id.z);
  const uint64_t thread = block_linear * 1024 + t;
  auto ret32 = [&](uint32_t v) { std::memcpy(frame + op.r[5], &v, 4); };
  switch (op.aux) {
    case B_CDP_PARAMETER_BUFFER: {
      uint64_t buf = rt.parameter_buffer(*b.env->heap, thread, frame_u64(frame, op.r[0], 8),
                                         frame_dim3(frame, op.r[1]), frame_dim3(frame, op.r[2]),
                                         frame_u32(frame, op.r[3]));
      std::memcpy(frame + op.r[5], &buf, 8);
      break;
    }
    case B_CDP_LAUNCH: {
      uint64_t buf = frame_u64(frame, op.r[0], 8);
      uint64_t bytes = rt.buffer_bytes(buf);
      const uint8_t* p =
          bytes ? read_generic(b, w, op, pc, l, buf, static_cast<uint32_t>(bytes)) : nullptr;
      ret32(rt.launch(*b.env->heap, thread, b.id, tid, buf, p, frame_u64(frame, op.r[1], 8)));
      break;
    }
    case B_CDP_STREAM_CREATE: {
      uint64_t handle = 0;
      uint32_t e = rt.stream_create(&handle);
      std::memcpy(read_generic(b, w, op, pc, l, frame_u64(frame, op.r[0], 8), 8), &handle, 8);
      ret32(e);
      break;
    }
    case B_CDP_STREAM_DESTROY:
      ret32(rt.stream_destroy(frame_u64(frame, op.r[0], 8)));
      break;
    case B_CDP_GET_LAST_ERROR:
    case B_CDP_PEEK_LAST_ERROR:
      ret32(rt.last_error(thread, op.aux == B_CDP_GET_LAST_ERROR));
      break;
    case B_CDP_MALLOC: {  // device-side cudaMalloc: the device heap, as malloc
      uint64_t ptr = b.env->heap->allocate(frame_u64(frame, op.r[1], 8));
      std::memcpy(read_generic(b, w, op, pc, l, frame_u64(frame, op.r[0], 8), 8), &ptr, 8);
      ret32(ptr ? kCudaSuccess : kCudaErrorMemoryAllocation);
      break;
    }
    case B_CDP_FREE: {
      uint64_t ptr = frame_u64(frame, op.r[0], 8);
      ret32(!ptr || b.env->heap->free(ptr) ? kCudaSuccess : kCudaErrorInvalidDevicePointer);
      break;
    }
    case B_CDP_MEMCPY_ASYNC:
    case B_CDP_MEMSET_ASYNC:
      ret32(stream_memory_op(b, w, op, pc, l, frame, rt, block_linear));
      break;
    default:
      exec_device_queries(b, w, op, pc, l, frame, rt, thread);
      break;
  }
}

}  // namespace

void exec_builtin(BlockCtx& b, Warp& w, const Op& op, uint32_t pc, uint32_t exec) {
  const Program& p = *b.prog;
  SMEMLAB_FOR_LANES(exec, {
    uint8_t* frame = w.local + size_t{l} * p.frame_bytes;
    if (op.imm) frame += w.R[static_cast<size_t>(op.imm - 1) * 32 + l];
    switch (op.aux) {
      case B_VPRINTF: {
        std::string f = read_string(b, w, op, pc, l, frame_u64(frame, op.r[0], 8));
        std::string text;
        int n = format_printf(b, w, op, pc, l, f, frame_u64(frame, op.r[1], 8), &text);
        b.printf_out += text;
        int32_t ret = n;
        std::memcpy(frame + op.r[5], &ret, 4);
        break;
      }
      case B_ASSERTFAIL: {
        std::string msg = read_string(b, w, op, pc, l, frame_u64(frame, op.r[0], 8));
        std::string file = read_string(b, w, op, pc, l, frame_u64(frame, op.r[1], 8));
        uint32_t line = static_cast<uint32_t>(frame_u64(frame, op.r[2], 4));
        std::string fn = read_string(b, w, op, pc, l, frame_u64(frame, op.r[3], 8));
        fault(w, pc, static_cast<int>(l), FaultKind::Assert,
              fmt::format("assertion failed: `{}` ({}:{}, in function '{}')", msg, file, line, fn));
      }
      case B_MALLOC: {
        uint64_t ptr = b.env->heap->allocate(frame_u64(frame, op.r[0], 8));
        std::memcpy(frame + op.r[5], &ptr, 8);
        break;
      }
      case B_FREE: {
        uint64_t ptr = frame_u64(frame, op.r[0], 8);
        if (ptr && !b.env->heap->free(ptr))
          fault(w, pc, static_cast<int>(l), FaultKind::InvalidFree,
                fmt::format("free(0x{:x}): not an address malloc returned, or freed twice", ptr));
        break;
      }
      case B_SET_CONDITIONAL: {
        // The runtime's handle is the address of the condition's 4-byte cell
        // in device memory (runtime/graph_model.h): a checked store there.
        uint64_t handle = frame_u64(frame, op.r[0], 8);
        uint32_t value = static_cast<uint32_t>(frame_u64(frame, op.r[1], 4));
        std::memcpy(read_generic(b, w, op, pc, l, handle, 4), &value, 4);
        break;
      }
      default:
        exec_device_runtime(b, w, op, pc, l, frame);
        break;
    }
  });
}

}  // namespace smemlab::emu

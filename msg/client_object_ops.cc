// client.h: the object operations of OsdClient (a client -> a PG primary, and the direct reads
// and leases of issue 28, the object metadata of issue 29), each a typed call over client_calls.h.
#include <fmt/format.h>

#include "msg/client.h"
#include "msg/client_calls.h"

namespace ec::msg {

using detail::MakeCall;
using detail::Typed;
using detail::Wait;

void OsdClient::ObjWriteAsync(ObjWriteRequest request, std::vector<Buffer> data,
                              Callback<ObjWriteResult> done, CallOptions options) {
  impl_->Submit(MakeCall(
      std::move(request), std::move(data), options,
      Typed<ObjWriteReply, ObjWriteResult>(std::move(done), [](const ObjWriteReply& r, Buffer) {
        return Result<ObjWriteResult>(ObjWriteResult{r.version, r.object_size});
      })));
}

Result<ObjWriteResult> OsdClient::ObjWrite(ObjWriteRequest request, std::vector<Buffer> data,
                                           CallOptions options) {
  return Wait<ObjWriteResult>([&](Callback<ObjWriteResult> cb) {
    ObjWriteAsync(std::move(request), std::move(data), std::move(cb), options);
  });
}

void OsdClient::ObjReadAsync(ObjReadRequest request, Callback<ObjReadResult> done,
                             CallOptions options) {
  auto convert = [asked = request.length](const ObjReadReply& r,
                                          Buffer payload) -> Result<ObjReadResult> {
    if (asked != 0 && payload.size() > asked) {
      return Status::Error(
          EBADMSG, fmt::format("ObjRead reply of {} bytes for {} asked", payload.size(), asked));
    }
    return ObjReadResult{std::move(payload), r.version,       r.object_size,
                         r.degraded,         r.network_bytes, r.device_bytes};
  };
  impl_->Submit(MakeCall(std::move(request), {}, options,
                         Typed<ObjReadReply, ObjReadResult>(std::move(done), std::move(convert))));
}

Result<ObjReadResult> OsdClient::ObjRead(ObjReadRequest request, CallOptions options) {
  return Wait<ObjReadResult>([&](Callback<ObjReadResult> cb) {
    ObjReadAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::ObjDirectReadAsync(ObjDirectReadRequest request, Callback<Buffer> done,
                                   CallOptions options) {
  auto convert = [asked = request.length](const ObjDirectReadReply&,
                                          Buffer payload) -> Result<Buffer> {
    if (payload.size() != asked) {
      return Status::Error(EBADMSG, fmt::format("ObjDirectRead reply of {} bytes for {} asked",
                                                payload.size(), asked));
    }
    return payload;
  };
  impl_->Submit(MakeCall(std::move(request), {}, options,
                         Typed<ObjDirectReadReply, Buffer>(std::move(done), std::move(convert))));
}

void OsdClient::ReadLeaseAsync(ReadLeaseRequest request, Callback<ReadLeaseReply> done,
                               CallOptions options) {
  auto convert = [asked = request.pgs.size()](const ReadLeaseReply& r,
                                              Buffer) -> Result<ReadLeaseReply> {
    if (r.grants.size() != asked) {
      return Status::Error(EBADMSG, fmt::format("ReadLease reply of {} grants for {} PGs asked",
                                                r.grants.size(), asked));
    }
    return r;
  };
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<ReadLeaseReply, ReadLeaseReply>(std::move(done), std::move(convert))));
}

void OsdClient::ObjStatAsync(ObjStatRequest request, Callback<ObjStatResult> done,
                             CallOptions options) {
  impl_->Submit(MakeCall(
      std::move(request), {}, options,
      Typed<ObjStatReply, ObjStatResult>(std::move(done), [](const ObjStatReply& r, Buffer) {
        return Result<ObjStatResult>(ObjStatResult{r.version, r.size, r.mtime, r.form});
      })));
}

Result<ObjStatResult> OsdClient::ObjStat(ObjStatRequest request, CallOptions options) {
  return Wait<ObjStatResult>([&](Callback<ObjStatResult> cb) {
    ObjStatAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::ObjRemoveAsync(ObjRemoveRequest request, Callback<std::uint64_t> done,
                               CallOptions options) {
  impl_->Submit(MakeCall(
      std::move(request), {}, options,
      Typed<ObjRemoveReply, std::uint64_t>(std::move(done), [](const ObjRemoveReply& r, Buffer) {
        return Result<std::uint64_t>(r.version);
      })));
}

Result<std::uint64_t> OsdClient::ObjRemove(ObjRemoveRequest request, CallOptions options) {
  return Wait<std::uint64_t>([&](Callback<std::uint64_t> cb) {
    ObjRemoveAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::ObjListAsync(ObjListRequest request, Callback<ObjListResult> done,
                             CallOptions options) {
  auto convert = [max = request.max_entries](const ObjListReply& r,
                                             Buffer) -> Result<ObjListResult> {
    if (r.objects.size() > max) {
      return Status::Error(
          EBADMSG, fmt::format("ObjList reply has {} objects for {} asked", r.objects.size(), max));
    }
    return ObjListResult{r.objects, r.next_cursor, r.end};
  };
  impl_->Submit(MakeCall(std::move(request), {}, options,
                         Typed<ObjListReply, ObjListResult>(std::move(done), std::move(convert))));
}

Result<ObjListResult> OsdClient::ObjList(ObjListRequest request, CallOptions options) {
  return Wait<ObjListResult>([&](Callback<ObjListResult> cb) {
    ObjListAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::ObjSetXattrsAsync(ObjSetXattrsRequest request, Callback<std::uint64_t> done,
                                  CallOptions options) {
  impl_->Submit(MakeCall(std::move(request), {}, options,
                         Typed<ObjSetXattrsReply, std::uint64_t>(
                             std::move(done), [](const ObjSetXattrsReply& r, Buffer) {
                               return Result<std::uint64_t>(r.version);
                             })));
}

Result<std::uint64_t> OsdClient::ObjSetXattrs(ObjSetXattrsRequest request, CallOptions options) {
  return Wait<std::uint64_t>([&](Callback<std::uint64_t> cb) {
    ObjSetXattrsAsync(std::move(request), std::move(cb), options);
  });
}

void OsdClient::ObjGetXattrsAsync(ObjGetXattrsRequest request, Callback<ObjXattrsResult> done,
                                  CallOptions options) {
  impl_->Submit(
      MakeCall(std::move(request), {}, options,
               Typed<ObjGetXattrsReply, ObjXattrsResult>(
                   std::move(done), [](const ObjGetXattrsReply& r, Buffer) {
                     return Result<ObjXattrsResult>(ObjXattrsResult{r.version, r.mtime, r.xattrs});
                   })));
}

Result<ObjXattrsResult> OsdClient::ObjGetXattrs(ObjGetXattrsRequest request, CallOptions options) {
  return Wait<ObjXattrsResult>([&](Callback<ObjXattrsResult> cb) {
    ObjGetXattrsAsync(std::move(request), std::move(cb), options);
  });
}

}  // namespace ec::msg

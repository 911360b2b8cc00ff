// FramedConnection: one TCP connection carrying frames of the OSD protocol (msg/PROTOCOL.md).
// It is the part of the messenger that the server (server.cc) and the client (client.cc) share:
//
//   reading   [fixed header] -> DecodeFrameHeader against Options::limits (before anything is
//             allocated) -> CheckHeader (the owner: is this type expected now?) -> message header
//             and payload read into buffers of exactly the declared lengths (first whatever the
//             socket already holds, then the rest asynchronously) -> both crc32c -> OnFrame
//   writing   Send(frame) queues; everything queued goes out in one gathered write (out_frame.h),
//             payload Buffers are never copied
//   MAC       after an authenticated handshake (EnableMac), every frame sent gets its MAC when
//             queued and every frame read is checked against its own before its crcs
//             (msg/auth/handshake.h FrameMac); a mismatch is OnFrameError(kBadMac)
//   timers    frame_timeout (a frame whose first byte arrived must be complete within it),
//             idle_timeout (waiting for a frame's first byte with nothing outstanding), and one
//             deadline the owner arms (the handshake)
//   closing   Close() closes the socket and hands back the frames that were never written
//
// The owner, a class derived from this one, keeps what differs between the two sides: what a frame
// means (requests to dispatch, or replies to match to tags), when to read the next frame (the
// server's backpressure), and what an error does. The connection never closes itself and never
// starts a read on its own: it reports through the hooks below and the owner decides.
//
// Threading: every method and hook runs on the socket's executor, which must be a strand (or an
// io_context run by one thread). Lifetime: owned by std::shared_ptr; every pending operation holds
// a reference, so the object lives until its last completion has run.
#pragma once

#include <array>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "ec/buffer.h"
#include "msg/auth/handshake.h"
#include "msg/frame.h"
#include "msg/out_frame.h"

namespace ec::msg::detail {

class FramedConnection : public std::enable_shared_from_this<FramedConnection> {
 public:
  using tcp = boost::asio::ip::tcp;

  struct Options {
    Limits limits;  // what this side accepts; checked before any allocation
    // Once the first byte of a frame has arrived, the rest must arrive within this time (0: no
    // limit). Reported as OnTimer(Timer::kFrame).
    std::chrono::milliseconds frame_timeout{0};
    // ReadFrame(idle = true) waits at most this long for the first byte (0: no limit). Reported
    // as OnTimer(Timer::kIdle).
    std::chrono::milliseconds idle_timeout{0};
    // Added to for every byte read from / written to the socket (may be null).
    std::atomic<std::uint64_t>* bytes_in = nullptr;
    std::atomic<std::uint64_t>* bytes_out = nullptr;
  };

  enum class Timer { kDeadline, kFrame, kIdle };

  // `socket` may be open (accepted) or not yet (the owner connects it, then calls Prepare). Its
  // executor is the connection's executor.
  FramedConnection(tcp::socket socket, Options options);
  virtual ~FramedConnection() = default;
  FramedConnection(const FramedConnection&) = delete;
  FramedConnection& operator=(const FramedConnection&) = delete;

  tcp::socket& socket() { return socket_; }
  tcp::socket::executor_type executor() { return socket_.get_executor(); }
  bool closed() const { return closed_; }

 protected:
  // On a connected socket: TCP_NODELAY, and non-blocking mode for the speculative body reads.
  void Prepare();

  // Starts reading the next frame; its outcome arrives through exactly one of OnFrame,
  // OnFrameError, OnReadError or OnTimer. With `idle`, the idle timeout applies until the first
  // byte. Does nothing once closed. Must not be called while a read is in progress.
  void ReadFrame(bool idle = false);

  // Queues `frame` and starts a gathered write unless one is in progress (then it goes with the
  // next). With a MAC enabled the frame is signed here, so frames carry their MACs in queueing
  // order. Precondition: !closed() (the owner decides what an unsendable frame means).
  void Send(OutFrame frame);

  // From now on every frame sent is signed with `tx_key` and every frame read must carry the MAC
  // of `rx_key` (each direction's sequence starts at 0). Call it between the last frame of the
  // handshake sent and the next ReadFrame. Errors: EIO (library).
  Status EnableMac(std::span<const std::byte> tx_key, std::span<const std::byte> rx_key);
  bool mac_enabled() const { return rx_mac_ != nullptr; }

  // Arms the owner's deadline (replacing any timer); while it is armed, frame and idle timeouts
  // are not. DisarmTimer cancels whichever timer is armed.
  void ArmDeadline(std::chrono::milliseconds d);
  void DisarmTimer();

  // Closes the socket (pending operations complete with errors, which are not reported as read
  // errors) and cancels the timer. Returns the frames queued but not yet handed to a write; the
  // frames of a write in progress come back through OnWritten with an error. Idempotent.
  std::vector<OutFrame> Close();

  // Hooks, called on the executor.
  //
  // A decoded fixed header (magic, crc, version, flags, type and lengths already checked): return
  // kNone to read its body, or the reason to refuse it (then OnFrameError follows with `why`).
  virtual FrameError CheckHeader(const FrameHeader& header, std::string* why) = 0;
  // A complete frame, both crcs checked. `message` is valid until the next ReadFrame; the payload
  // Buffer belongs to the callee.
  virtual void OnFrame(const FrameHeader& header, std::span<const std::byte> message,
                       Buffer payload) = 0;
  // A frame that must be refused (bad header, crc, or CheckHeader's refusal); nothing of it is
  // delivered and the stream cannot be resynchronised.
  virtual void OnFrameError(FrameError why, std::string_view message) = 0;
  // The socket failed or reached EOF; `mid_frame` when part of a frame had been received.
  virtual void OnReadError(const boost::system::error_code& ec, bool mid_frame) = 0;
  // The armed timer expired (not reported once closed).
  virtual void OnTimer(Timer which) = 0;
  // A write finished (or failed: ec; also after Close). `frames` are those it carried; Send from
  // here queues for the next write.
  virtual void OnWritten(const std::vector<OutFrame>& frames,
                         const boost::system::error_code& ec) = 0;

 private:
  void OnHeaderBytes(const boost::system::error_code& ec, std::size_t n);
  void ReadBody();
  void OnBody(const boost::system::error_code& ec, std::size_t n);
  void ArmTimer(std::chrono::milliseconds d, Timer which);
  void ArmFrameTimer();
  void WriteQueued();
  void OnWriteDone(const boost::system::error_code& ec, std::size_t n);
  void CountIn(std::size_t n) {
    if (options_.bytes_in != nullptr && n > 0) options_.bytes_in->fetch_add(n);
  }

  tcp::socket socket_;
  boost::asio::steady_timer timer_;
  Options options_;
  bool closed_ = false;

  std::uint64_t timer_gen_ = 0;  // bumped by every arm/disarm: a stale expiry is ignored
  bool timer_armed_ = false;
  Timer timer_kind_ = Timer::kDeadline;

  std::array<std::byte, kFrameHeaderSize> hdr_{};
  std::size_t hdr_got_ = 0;  // > 0: a frame has started (EOF now truncates it)
  FrameHeader frame_;
  std::vector<std::byte> msg_;
  Buffer payload_;
  std::array<std::byte, kFrameMacLen> mac_in_{};
  std::unique_ptr<auth::FrameMac> tx_mac_;
  std::unique_ptr<auth::FrameMac> rx_mac_;

  std::vector<OutFrame> queue_;
  std::vector<OutFrame> in_write_;
  std::vector<boost::asio::const_buffer> gather_;
  bool writing_ = false;
};

}  // namespace ec::msg::detail

#include "msg/connection.h"

#include <algorithm>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <fmt/format.h>

namespace ec::msg::detail {

namespace asio = boost::asio;

FramedConnection::FramedConnection(tcp::socket socket, Options options)
    : socket_(std::move(socket)), timer_(socket_.get_executor()), options_(options) {}

void FramedConnection::Prepare() {
  boost::system::error_code ignored;
  socket_.set_option(tcp::no_delay(true), ignored);
  socket_.non_blocking(true, ignored);  // for the speculative body reads in ReadBody
}

void FramedConnection::ArmTimer(std::chrono::milliseconds d, Timer which) {
  ++timer_gen_;
  timer_armed_ = true;
  timer_kind_ = which;
  timer_.expires_after(d);
  timer_.async_wait(
      [self = shared_from_this(), gen = timer_gen_](const boost::system::error_code& ec) {
        if (ec || gen != self->timer_gen_ || self->closed_) return;
        self->timer_armed_ = false;
        self->OnTimer(self->timer_kind_);
      });
}

void FramedConnection::ArmDeadline(std::chrono::milliseconds d) {
  if (d.count() <= 0) return DisarmTimer();
  ArmTimer(d, Timer::kDeadline);
}

void FramedConnection::DisarmTimer() {
  ++timer_gen_;
  if (!timer_armed_) return;  // nothing to cancel: spares a syscall per frame
  timer_armed_ = false;
  timer_.cancel();
}

// The frame timer runs only while a frame is incomplete and we wait for the rest: a frame that
// arrives whole costs no timer operations. The owner's deadline, when armed, takes precedence.
void FramedConnection::ArmFrameTimer() {
  if (options_.frame_timeout.count() <= 0) return;
  if (timer_armed_ && timer_kind_ == Timer::kDeadline) return;
  ArmTimer(options_.frame_timeout, Timer::kFrame);
}

void FramedConnection::ReadFrame(bool idle) {
  if (closed_) return;
  hdr_got_ = 0;
  if (idle && options_.idle_timeout.count() > 0 &&
      !(timer_armed_ && timer_kind_ == Timer::kDeadline)) {
    ArmTimer(options_.idle_timeout, Timer::kIdle);
  }
  socket_.async_read_some(
      asio::buffer(hdr_.data(), hdr_.size()),
      [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
        self->OnHeaderBytes(ec, n);
      });
}

void FramedConnection::OnHeaderBytes(const boost::system::error_code& ec, std::size_t n) {
  CountIn(n);
  if (closed_) return;
  const bool first = hdr_got_ == 0 && n > 0;
  hdr_got_ += n;
  if (first && timer_armed_ && timer_kind_ == Timer::kIdle) DisarmTimer();
  if (ec) return OnReadError(ec, hdr_got_ > 0);
  if (hdr_got_ < kFrameHeaderSize) {
    if (first) ArmFrameTimer();
    asio::async_read(socket_, asio::buffer(hdr_.data() + hdr_got_, kFrameHeaderSize - hdr_got_),
                     [self = shared_from_this()](const boost::system::error_code& ec2,
                                                 std::size_t n2) { self->OnHeaderBytes(ec2, n2); });
    return;
  }
  FrameError why = FrameError::kNone;
  auto h = DecodeFrameHeader(hdr_, options_.limits, &why);
  if (!h.ok()) return OnFrameError(why, h.status().message());
  frame_ = *h;
  std::string refusal;
  why = CheckHeader(frame_, &refusal);
  if (why != FrameError::kNone) return OnFrameError(why, refusal);
  // Lengths were checked against Limits by DecodeFrameHeader: allocating them is bounded.
  msg_.resize(frame_.header_len);
  payload_ = frame_.payload_len ? Buffer::Allocate(frame_.payload_len, false) : Buffer();
  ReadBody();
}

// Reads the message header and payload: first whatever the socket already holds (usually all of a
// small frame, saving a trip through the reactor), then the rest asynchronously.
void FramedConnection::ReadBody() {
  const std::size_t mac_len = rx_mac_ ? mac_in_.size() : 0;
  const std::size_t total = msg_.size() + payload_.size() + mac_len;
  std::size_t got = 0;
  if (total > 0) {
    std::array<asio::mutable_buffer, 3> bufs{asio::buffer(msg_.data(), msg_.size()),
                                             asio::buffer(payload_.data(), payload_.size()),
                                             asio::buffer(mac_in_.data(), mac_len)};
    boost::system::error_code ec;
    got = socket_.read_some(bufs, ec);
    if (ec == asio::error::would_block || ec == asio::error::try_again) {
      ec.clear();
      got = 0;
    }
    if (ec) return OnReadError(ec, true);
  }
  if (got == total) return OnBody({}, got);
  CountIn(got);
  ArmFrameTimer();
  const std::size_t in_msg = std::min(got, msg_.size());
  const std::size_t in_payload = std::min(got - in_msg, payload_.size());
  const std::size_t in_mac = got - in_msg - in_payload;
  std::array<asio::mutable_buffer, 3> rest{
      asio::buffer(msg_.data() + in_msg, msg_.size() - in_msg),
      asio::buffer(payload_.data() + in_payload, payload_.size() - in_payload),
      asio::buffer(mac_in_.data() + in_mac, mac_len - in_mac)};
  asio::async_read(socket_, rest,
                   [self = shared_from_this()](const boost::system::error_code& ec, std::size_t n) {
                     self->OnBody(ec, n);
                   });
}

void FramedConnection::OnBody(const boost::system::error_code& ec, std::size_t n) {
  CountIn(n);
  if (closed_) return;
  if (ec) return OnReadError(ec, true);
  if (timer_armed_ && timer_kind_ == Timer::kFrame) DisarmTimer();
  if (rx_mac_) {
    const std::uint64_t seq = rx_mac_->sequence();
    if (!rx_mac_->Verify(hdr_, msg_, payload_.span(), mac_in_)) {
      return OnFrameError(FrameError::kBadMac,
                          fmt::format("{} frame {} of this connection fails its MAC: changed, "
                                      "replayed, reordered or not from the authenticated peer",
                                      TypeName(static_cast<MsgType>(frame_.type)), seq));
    }
  }
  if (Status s = CheckCrc(msg_, frame_.header_crc, "header"); !s.ok()) {
    return OnFrameError(FrameError::kBadHeaderCrc, s.message());
  }
  if (Status s = CheckCrc(payload_.span(), frame_.payload_crc, "payload"); !s.ok()) {
    return OnFrameError(FrameError::kBadPayloadCrc, s.message());
  }
  OnFrame(frame_, msg_, std::move(payload_));
}

void FramedConnection::Send(OutFrame frame) {
  if (tx_mac_) {
    frame.mac = tx_mac_->Sign(frame.fixed, frame.header, frame.payload);
    frame.has_mac = true;
  }
  queue_.push_back(std::move(frame));
  if (!writing_) WriteQueued();
}

Status FramedConnection::EnableMac(std::span<const std::byte> tx_key,
                                   std::span<const std::byte> rx_key) {
  auto tx = auth::FrameMac::Create(tx_key);
  if (!tx.ok()) return tx.status();
  auto rx = auth::FrameMac::Create(rx_key);
  if (!rx.ok()) return rx.status();
  tx_mac_ = std::move(tx).value();
  rx_mac_ = std::move(rx).value();
  return Status::OK();
}

// Writes everything queued in one gathered write.
void FramedConnection::WriteQueued() {
  writing_ = true;
  in_write_.clear();
  std::swap(in_write_, queue_);
  gather_.clear();
  AppendGather(in_write_, gather_);
  asio::async_write(socket_, gather_,
                    [self = shared_from_this()](const boost::system::error_code& ec,
                                                std::size_t n) { self->OnWriteDone(ec, n); });
}

void FramedConnection::OnWriteDone(const boost::system::error_code& ec, std::size_t n) {
  if (options_.bytes_out != nullptr && n > 0) options_.bytes_out->fetch_add(n);
  // writing_ stays set during the hook, so that a Send from it only queues.
  OnWritten(in_write_, ec);
  in_write_.clear();
  writing_ = false;
  if (!ec && !closed_ && !queue_.empty()) WriteQueued();
}

std::vector<OutFrame> FramedConnection::Close() {
  if (closed_) return {};
  closed_ = true;
  DisarmTimer();
  boost::system::error_code ignored;
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
  return std::exchange(queue_, {});
}

}  // namespace ec::msg::detail

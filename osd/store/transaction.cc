#include "osd/store/transaction.h"

#include <utility>

namespace ec::osd::store {

using Type = Transaction::Op::Type;

void Transaction::CreateCollection(std::string coll) {
  ops_.push_back(Op{Type::kCreateCollection, std::move(coll), {}, 0, {}, {}, {}});
}
void Transaction::RemoveCollection(std::string coll) {
  ops_.push_back(Op{Type::kRemoveCollection, std::move(coll), {}, 0, {}, {}, {}});
}
void Transaction::Touch(std::string coll, std::string name) {
  ops_.push_back(Op{Type::kTouch, std::move(coll), std::move(name), 0, {}, {}, {}});
}
void Transaction::Write(std::string coll, std::string name, std::uint64_t offset,
                        std::span<const std::byte> data) {
  ops_.push_back(
      Op{Type::kWrite, std::move(coll), std::move(name), offset, Buffer::Copy(data), {}, {}});
}
void Transaction::Write(std::string coll, std::string name, std::uint64_t offset, Buffer data) {
  ops_.push_back(
      Op{Type::kWrite, std::move(coll), std::move(name), offset, std::move(data), {}, {}});
}
void Transaction::Truncate(std::string coll, std::string name, std::uint64_t size) {
  ops_.push_back(Op{Type::kTruncate, std::move(coll), std::move(name), size, {}, {}, {}});
}
void Transaction::Remove(std::string coll, std::string name) {
  ops_.push_back(Op{Type::kRemove, std::move(coll), std::move(name), 0, {}, {}, {}});
}
void Transaction::SetAttr(std::string coll, std::string name, std::string key, std::string value) {
  ops_.push_back(Op{
      Type::kSetAttr, std::move(coll), std::move(name), 0, {}, std::move(key), std::move(value)});
}
void Transaction::RemoveAttr(std::string coll, std::string name, std::string key) {
  ops_.push_back(
      Op{Type::kRemoveAttr, std::move(coll), std::move(name), 0, {}, std::move(key), {}});
}
void Transaction::Rename(std::string coll, std::string from, std::string to) {
  ops_.push_back(Op{Type::kRename, std::move(coll), std::move(from), 0, {}, std::move(to), {}});
}

void Transaction::MoveBlocks(std::string coll, std::string from, std::string to,
                             std::uint64_t offset, std::uint64_t length) {
  Op op{Type::kMoveBlocks, std::move(coll), std::move(from), offset, {}, std::move(to), {}};
  op.length = length;
  ops_.push_back(std::move(op));
}

}  // namespace ec::osd::store

// Transaction: an ordered list of changes to objects and collections that ObjectStore::Apply makes
// all together or not at all. Building one does no I/O and cannot fail; errors (a missing
// collection, a bad name, ...) are reported by Apply, which then changes nothing.
//
// Names: a collection name is non-empty, at most 255 bytes and contains no NUL byte; an object
// name is non-empty and at most 4096 bytes.
//
// Ownership: Write(span) copies its bytes into the transaction; Write(Buffer) shares the buffer.
// Thread safety: plain value.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ec/buffer.h"

namespace ec::osd::store {

class Transaction {
 public:
  struct Op {
    enum class Type {
      kCreateCollection,  // EEXIST if it exists
      kRemoveCollection,  // ENOENT if missing, ENOTEMPTY if it holds objects
      kTouch,             // creates an empty object if missing
      kWrite,             // writes data at offset, creating the object, growing its size
      kTruncate,          // sets the size (ENOENT if missing); new bytes read as zeros
      kRemove,            // ENOENT if missing
      kSetAttr,           // creates the object if missing
      kRemoveAttr,        // ENOENT if the object is missing, ENODATA if the attribute is
      kRename,            // name -> key (the new name); ENOENT if missing, EINVAL if equal
      kMoveBlocks,        // name's whole blocks [offset, offset + length) -> key's, same offsets
    };
    Type type;
    std::string coll;
    std::string name;
    std::uint64_t offset = 0;  // write offset or truncate size
    Buffer data;               // write data
    std::string key;           // attribute name; kRename: the destination object name
    std::string value;         // attribute value
    std::uint64_t length = 0;  // kMoveBlocks: bytes moved
  };

  void CreateCollection(std::string coll);
  void RemoveCollection(std::string coll);
  void Touch(std::string coll, std::string name);
  void Write(std::string coll, std::string name, std::uint64_t offset,
             std::span<const std::byte> data);
  // The same without a copy: the transaction shares `data` (an immutable, refcounted Buffer, e.g.
  // a message payload received from the network).
  void Write(std::string coll, std::string name, std::uint64_t offset, Buffer data);
  void Truncate(std::string coll, std::string name, std::uint64_t size);
  void Remove(std::string coll, std::string name);
  void SetAttr(std::string coll, std::string name, std::string key, std::string value);
  void RemoveAttr(std::string coll, std::string name, std::string key);
  // Moves object `from` to the name `to` in collection `coll`: data, size and attributes, as a
  // metadata change (no data is copied, the blocks keep their place on the device). An existing
  // `to` is replaced (its blocks are freed). Later ops of the transaction see the object under
  // `to` only, and `from` as missing (a later write to `from` creates a new object); data written
  // to `from` earlier in the same transaction moves along. Errors at Apply: ENOENT if `from` does
  // not exist at that point of the transaction; EINVAL if from == to or a name is bad.
  void Rename(std::string coll, std::string from, std::string to);
  // Moves the blocks of object `from` that hold its bytes [offset, offset + length) to object `to`
  // at the same offsets, as a metadata change (no data is read or copied: an undo record keeps
  // the old bytes of a range about to be overwritten this way). `to` is created if missing and
  // grows to cover the moved bytes (up to `from`'s size); what it held there is replaced. `from`
  // keeps its size and reads zeros there until written (the caller overwrites the range in the
  // same transaction). Errors at Apply: ENOENT if `from` does not exist; EINVAL if offset or
  // length is not a multiple of 4096, the range passes 2^48, or from == to.
  void MoveBlocks(std::string coll, std::string from, std::string to, std::uint64_t offset,
                  std::uint64_t length);

  const std::vector<Op>& ops() const { return ops_; }
  bool empty() const { return ops_.empty(); }

 private:
  std::vector<Op> ops_;
};

}  // namespace ec::osd::store

#include "libiashim/src/thread_buffer.h"

#include <pthread.h>

#include <new>

#include "libiashim/src/real_driver.h"

namespace iashim {

thread_local ThreadBuffer* ThreadBuffer::tls_current_ = nullptr;
std::atomic<ThreadBuffer*> ThreadBuffer::head_of_list_{nullptr};
std::atomic<uint32_t> ThreadBuffer::next_index_{0};

namespace {

// A pthread key rather than a thread_local with a destructor: it also fires for
// threads the shim never created and needs no C++ runtime support at exit.
pthread_key_t ExitKey(void (*on_exit)(void*)) {
  static const pthread_key_t key = [on_exit] {
    pthread_key_t k;
    pthread_key_create(&k, on_exit);
    return k;
  }();
  return key;
}

}  // namespace

ThreadBuffer* ThreadBuffer::Attach() {
  ThreadBuffer* b = nullptr;
  for (ThreadBuffer* it = Head(); it != nullptr; it = it->next_) {
    int expected = kFree;
    if (it->state_.compare_exchange_strong(expected, kOwned, std::memory_order_acq_rel)) {
      b = it;
      b->tail_cache_ = b->tail_.load(std::memory_order_acquire);
      b->sample_countdown_ = 1;
      break;
    }
  }
  if (b == nullptr) {
    b = new (std::nothrow) ThreadBuffer();
    if (b == nullptr) return nullptr;
    ThreadBuffer* head = head_of_list_.load(std::memory_order_relaxed);
    do {
      b->next_ = head;
    } while (!head_of_list_.compare_exchange_weak(head, b, std::memory_order_release,
                                                  std::memory_order_relaxed));
  }
  b->index_.store(next_index_.fetch_add(1, std::memory_order_relaxed), std::memory_order_relaxed);
  tls_current_ = b;
  pthread_setspecific(ExitKey(&Detach), b);
  return b;
}

void ThreadBuffer::Detach(void* p) {
  auto* b = static_cast<ThreadBuffer*>(p);
  tls_current_ = nullptr;
  b->state_.store(kRetired, std::memory_order_release);
}

int ThreadBuffer::AcquireEventPair(CUcontext ctx) {
  int free_slot = -1;
  for (int i = 0; i < kEventPairs; ++i) {
    EventPair& p = pairs_[i];
    if (p.in_flight.load(std::memory_order_acquire)) continue;
    if (p.ctx == ctx && p.start != nullptr) {
      p.in_flight.store(true, std::memory_order_relaxed);
      return i;
    }
    if (free_slot < 0 || pairs_[free_slot].start != nullptr) free_slot = i;
  }
  if (free_slot < 0) return -1;
  EventPair& p = pairs_[free_slot];
  auto destroy = IASHIM_REAL(cuEventDestroy_v2);
  auto create = IASHIM_REAL(cuEventCreate);
  if (create == nullptr || destroy == nullptr) return -1;
  if (p.start != nullptr) destroy(p.start);
  if (p.end != nullptr) destroy(p.end);
  p.start = p.end = nullptr;
  p.ctx = nullptr;
  if (create(&p.start, CU_EVENT_DEFAULT) != CUDA_SUCCESS) return -1;
  if (create(&p.end, CU_EVENT_DEFAULT) != CUDA_SUCCESS) {
    destroy(p.start);
    p.start = nullptr;
    return -1;
  }
  p.ctx = ctx;
  p.in_flight.store(true, std::memory_order_relaxed);
  return free_slot;
}

bool ThreadBuffer::HasPairsInFlight() const {
  for (const EventPair& p : pairs_) {
    if (p.in_flight.load(std::memory_order_acquire)) return true;
  }
  return false;
}

void ThreadBuffer::DestroyIdleEventPairs() {
  auto destroy = IASHIM_REAL(cuEventDestroy_v2);
  for (EventPair& p : pairs_) {
    if (p.in_flight.load(std::memory_order_acquire)) continue;
    if (destroy != nullptr) {
      if (p.start != nullptr) destroy(p.start);
      if (p.end != nullptr) destroy(p.end);
    }
    p.ctx = nullptr;
    p.start = p.end = nullptr;
  }
}

void ThreadBuffer::ResetAfterFork() {
  for (ThreadBuffer* b = Head(); b != nullptr; b = b->next_) {
    b->tail_.store(b->head_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    b->tail_cache_ = b->tail_.load(std::memory_order_relaxed);
    for (EventPair& p : b->pairs_) {
      // The parent's CUDA objects mean nothing here; forget, do not destroy.
      p.in_flight.store(false, std::memory_order_relaxed);
      p.ctx = nullptr;
      p.start = p.end = nullptr;
    }
    if (b != tls_current_ && b->state_.load(std::memory_order_relaxed) == kOwned) {
      b->state_.store(kRetired, std::memory_order_relaxed);
    }
  }
}

}  // namespace iashim

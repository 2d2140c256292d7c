#include "sim/stream_worker.hpp"

#include <mutex>
#include <utility>

#include <simgrid/s4u.hpp>

namespace trainsim::sim {

namespace sg4 = simgrid::s4u;

StreamWorker::StreamWorker(sg4::Host* host)
    : mutex_(sg4::Mutex::create()), posted_cv_(sg4::ConditionVariable::create()),
      done_cv_(sg4::ConditionVariable::create()) {
  actor_ = sg4::Actor::create("stream", host, [this] { run(); });
}

long StreamWorker::post(Job job) {
  std::unique_lock lock(*mutex_);
  jobs_.push_back(std::move(job));
  posted_cv_->notify_one();
  return posted_++;
}

void StreamWorker::wait_for(long position) {
  std::unique_lock lock(*mutex_);
  done_cv_->wait(lock, [&] { return done_ > position; });
}

long StreamWorker::pid() const { return actor_->get_pid(); }

void StreamWorker::stop() {
  {
    std::unique_lock lock(*mutex_);
    stopping_ = true;
    posted_cv_->notify_one();
  }
  actor_->join();
}

// The lock is released while a job runs: the job blocks in simulated time, and the GPU
// actor must be able to post behind it meanwhile.
void StreamWorker::run() {
  std::unique_lock lock(*mutex_);
  for (;;) {
    posted_cv_->wait(lock, [&] { return !jobs_.empty() || stopping_; });
    if (jobs_.empty()) return;
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    job();
    lock.lock();
    ++done_;
    done_cv_->notify_all();
  }
}

} // namespace trainsim::sim

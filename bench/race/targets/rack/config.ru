# The Rack app of the real-server bench (go run ./bench/race -tables real):
# Debian's ruby-rack, ruby-activerecord and ruby-pg, served by WEBrick
# (ruby-webrick) through `rackup -s webrick`, a thread per request. POST
# /claims reads the body and then Charge.find_or_create_by!: a SELECT and
# then an INSERT, with no unique constraint on the key. GET /effects?key=K
# is the bench's count. DATABASE_URL names the database.
require 'active_record'
require 'json'

ActiveRecord::Base.logger = nil
url = ENV.fetch('DATABASE_URL')
ActiveRecord::Base.establish_connection("#{url}#{url.include?('?') ? '&' : '?'}pool=20")
ActiveRecord::Schema.verbose = false
ActiveRecord::Schema.define do
  create_table(:charges, if_not_exists: true) { |t| t.text :idempotency_key, null: false }
end

class Charge < ActiveRecord::Base; end

def json(status, body)
  [status, { 'Content-Type' => 'application/json' }, [JSON.generate(body)]]
end

app = lambda do |env|
  req = Rack::Request.new(env)
  ActiveRecord::Base.connection_pool.with_connection do
    case [req.request_method, req.path_info]
    when %w[POST /claims]
      req.body.read
      key = req.get_header('HTTP_IDEMPOTENCY_KEY').to_s
      next json(400, error: 'missing Idempotency-Key') if key.empty?
      charge = Charge.find_or_create_by!(idempotency_key: key)
      next json(201, status: 'charged', id: charge.id) if charge.previously_new_record?
      json(409, error: 'key already used')
    when %w[GET /effects]
      [200, { 'Content-Type' => 'text/plain' }, ["#{Charge.where(idempotency_key: req.params['key'].to_s).count}\n"]]
    else
      json(404, error: 'not found')
    end
  end
end

run app
